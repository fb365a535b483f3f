/// A reference to a type as written in a field, argument or variable definition:
/// a named type wrapped in any number of list and non-null modifiers.
///
/// Named types are referenced by name and resolved through
/// ``GraphQLSchema/type(named:)``; this keeps the schema a plain immutable value
/// graph (no reference cycles) and makes references cheap to compare.
public indirect enum GraphQLTypeReference: Sendable, Hashable, CustomStringConvertible {
    /// A named type (`Int`, `Order`).
    case named(String)
    /// A list of the wrapped type (`[T]`).
    case list(GraphQLTypeReference)
    /// The wrapped type, never null (`T!`). The wrapped type is never itself non-null.
    case nonNull(GraphQLTypeReference)

    /// The innermost named type's name (graphql-js `getNamedType`).
    public var namedType: String {
        switch self {
        case .named(let name): return name
        case .list(let inner), .nonNull(let inner): return inner.namedType
        }
    }

    /// The type without its outer non-null modifier (graphql-js `getNullableType`).
    public var nullable: GraphQLTypeReference {
        if case .nonNull(let inner) = self { return inner }
        return self
    }

    /// Whether the outermost modifier is non-null.
    public var isNonNull: Bool {
        if case .nonNull = self { return true }
        return false
    }

    /// Whether the type is a list, ignoring an outer non-null modifier.
    public var isList: Bool {
        if case .list = nullable { return true }
        return false
    }

    /// For a list (possibly non-null), the item type.
    public var listItem: GraphQLTypeReference? {
        if case .list(let inner) = nullable { return inner }
        return nil
    }

    /// The type as written in GraphQL: `[Int!]!`.
    public var description: String {
        switch self {
        case .named(let name): return name
        case .list(let inner): return "[" + inner.description + "]"
        case .nonNull(let inner): return inner.description + "!"
        }
    }
}
