import GraphQL

/// Which scopes each field requires, read from the SDL's `@requiresScope` directives.
struct ScopeRequirements: Sendable {
    /// `"Type.field"` → the scopes that may use it.
    let fields: [String: Set<ApiScope>]
    /// Root fields per root type name, in SDL order.
    let rootFields: [String: [String]]

    init(sdl: String) throws {
        let document = try Parser.parse(sdl, limits: .sdl)
        var fields: [String: Set<ApiScope>] = [:]
        var roots: [String: [String]] = [:]
        for definition in document.definitions {
            guard case .type(.object(let object)) = definition else { continue }
            if ["Query", "Mutation", "Subscription"].contains(object.name.value) {
                roots[object.name.value] = object.fields.map(\.name.value)
            }
            for field in object.fields {
                for directive in field.directives where directive.name.value == "requiresScope" {
                    guard let argument = directive.arguments.first(where: { $0.name.value == "scopes" }),
                          case .list(let list) = argument.value else { continue }
                    var scopes: Set<ApiScope> = []
                    for value in list.values {
                        if case .enumValue(let name) = value, let scope = ApiScope(rawValue: name.value) { scopes.insert(scope) }
                    }
                    fields["\(object.name.value).\(field.name.value)"] = scopes
                }
            }
        }
        self.fields = fields
        self.rootFields = roots
    }
}
