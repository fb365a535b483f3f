/// Fragment Spread Type Existence (spec §5.5.1.2,
/// https://spec.graphql.org/October2021/#sec-Fragment-Spread-Type-Existence),
/// and the same for variable types: every named type exists in the schema.
/// graphql-js: `KnownTypeNamesRule` (types defined in the document count as
/// known; in type-system definitions the built-in names are always known).
extension DocumentValidator {
    func checkKnownTypeName(_ named: NamedType, inTypeSystem: Bool) throws(ValidationAborted) {
        let name = named.name.value
        if catalog.type(named: name) != nil || documentTypeNames.contains(name) { return }
        if inTypeSystem, Self.standardTypeNames.contains(name) { return }
        var candidates = schema.types.map(\.name)
        for definition in document.definitions {
            if case .type(let type) = definition { candidates.append(type.name.value) }
        }
        if inTypeSystem { candidates = Self.standardTypeNames + candidates }
        let suggestions = GraphQLSuggestions.list(name, candidates)
        try report("Unknown type \"\(name)\".\(GraphQLSuggestions.didYouMean(suggestions))", [named.loc.start])
    }

    /// Names of the types defined by the document itself.
    var documentTypeNames: Set<String> {
        if let cached = documentTypeNameCache { return cached }
        var names = Set<String>()
        for definition in document.definitions {
            if case .type(let type) = definition { names.insert(type.name.value) }
        }
        documentTypeNameCache = names
        return names
    }

    /// Built-in scalars and introspection types, which SDL may always reference.
    static let standardTypeNames: [String] = [
        "String", "Int", "Float", "Boolean", "ID",
        "__Schema", "__Directive", "__DirectiveLocation", "__Type", "__Field", "__InputValue", "__EnumValue", "__TypeKind",
    ]
}
