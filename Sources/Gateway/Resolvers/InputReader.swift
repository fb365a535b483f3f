import Foundation
import JSON
import PaymentsCore

/// Typed reads of a coerced GraphQL input object (the executor has already checked
/// types and required fields against the schema; what is left is PayQL's own format
/// rules). A wrong global ID is a ``UserError`` naming the field.
struct InputReader: Sendable {
    let object: JSONObject
    let path: [String]

    init(_ object: JSONObject, path: [String]) {
        self.object = object
        self.path = path
    }

    /// The mutation's `input` argument.
    init(arguments: JSONObject) {
        self.init(arguments["input"]?.objectValue ?? JSONObject(), path: ["input"])
    }

    func string(_ name: String) -> String? { object[name]?.stringValue }
    func bool(_ name: String) -> Bool? { object[name]?.boolValue }
    func int(_ name: String) -> Int64? { object[name]?.intValue }
    func strings(_ name: String) -> [String]? { object[name]?.arrayValue?.compactMap(\.stringValue) }
    func nested(_ name: String) -> InputReader? { object[name]?.objectValue.map { InputReader($0, path: path + [name]) } }

    /// A required string (the schema makes it non-null; absent only through a bug).
    func requiredString(_ name: String) throws(UserError) -> String {
        guard let value = string(name) else { throw UserError(.required, "\(name) is required", field: path + [name]) }
        return value
    }

    /// A global ID of `type`.
    func id(_ name: String, of type: NodeType) throws(UserError) -> UUID? {
        guard let text = string(name) else { return nil }
        guard let id = GlobalID(text, of: type) else { throw UserError(.notFound, "\(name) is not a \(type.rawValue) id", field: path + [name]) }
        return id.uuid
    }

    func requiredID(_ name: String, of type: NodeType) throws(UserError) -> UUID {
        guard let id = try id(name, of: type) else { throw UserError(.required, "\(name) is required", field: path + [name]) }
        return id
    }

    /// `[KeyValueInput!]`.
    func keyValues(_ name: String) -> [(key: String, value: String)]? {
        object[name]?.arrayValue?.compactMap { item in
            guard let pair = item.objectValue, let key = pair["key"]?.stringValue, let value = pair["value"]?.stringValue else { return nil }
            return (key, value)
        }
    }

    /// A `MoneyInput`: (minor units, currency code).
    func money(_ name: String) throws(UserError) -> (minorUnits: Int64, currency: String)? {
        guard let money = nested(name) else { return nil }
        guard let text = money.string("amount"), let minor = Scalars.minorUnits(text) else {
            throw UserError(.invalidAmount, "amount must be MinorUnits", field: money.path + ["amount"])
        }
        return (minor, money.string("currency") ?? "INR")
    }

    /// A `Provider` enum value.
    func provider(_ name: String) -> ProviderName? { string(name).flatMap(ProviderName.init(graphQLName:)) }
}
