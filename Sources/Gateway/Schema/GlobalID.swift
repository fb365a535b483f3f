import Crypto
public import Foundation

/// The object types that have global IDs (`Node`), by GraphQL type name.
public enum NodeType: String, Sendable, CaseIterable {
    case customer = "Customer"
    case order = "Order"
    case payment = "Payment"
    case refund = "Refund"
    case bankAccount = "BankAccount"
    case linkedUpiAccount = "LinkedUpiAccount"
    case webhookEvent = "WebhookEvent"
    case clientSession = "ClientSession"
    case apiKey = "ApiKey"
    case rewardOffer = "RewardOffer"
    case reward = "Reward"
}

/// An opaque global ID: base64url (no padding) of `"<Type>:<uuid>"`.
///
/// Clients must not parse it; PayQL decodes it to check the type an argument
/// expects (`order(id:)` given a Customer's id resolves to null, a mutation
/// reports `NOT_FOUND` for the field).
public struct GlobalID: Sendable, Hashable, CustomStringConvertible {
    /// The object's type.
    public var type: NodeType
    /// The row's primary key.
    public var uuid: UUID

    /// The ID of the row `uuid` of `type`.
    public init(_ type: NodeType, _ uuid: UUID) {
        self.type = type
        self.uuid = uuid
    }

    /// Decodes `text`; nil for anything that is not an ID PayQL made (bounded: at most 100 characters).
    public init?(_ text: String) {
        guard text.utf8.count <= 100 else { return nil }
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.utf8.count % 4 != 0 { standard += "=" }
        guard let bytes = Encoding.bytes(base64: standard) else { return nil }
        let decoded = String(decoding: bytes, as: UTF8.self)
        guard let colon = decoded.firstIndex(of: ":"),
              let type = NodeType(rawValue: String(decoded[..<colon])),
              let uuid = UUID(uuidString: String(decoded[decoded.index(after: colon)...])) else { return nil }
        self.type = type
        self.uuid = uuid
    }

    /// Decodes `text` and checks it names a `type`; nil otherwise.
    public init?(_ text: String, of type: NodeType) {
        guard let id = GlobalID(text), id.type == type else { return nil }
        self = id
    }

    /// The opaque text.
    public var description: String {
        let standard = Encoding.base64(Array("\(type.rawValue):\(uuid.uuidString.lowercased())".utf8))
        return String(standard.compactMap { $0 == "=" ? nil : $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
