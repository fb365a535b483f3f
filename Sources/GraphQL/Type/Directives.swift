import JSON

/// Where a directive may appear (spec §3.13 "DirectiveLocation").
public enum DirectiveLocation: String, Sendable, CaseIterable {
    // Executable locations.
    case query = "QUERY"
    case mutation = "MUTATION"
    case subscription = "SUBSCRIPTION"
    case field = "FIELD"
    case fragmentDefinition = "FRAGMENT_DEFINITION"
    case fragmentSpread = "FRAGMENT_SPREAD"
    case inlineFragment = "INLINE_FRAGMENT"
    case variableDefinition = "VARIABLE_DEFINITION"
    // Type system locations.
    case schema = "SCHEMA"
    case scalar = "SCALAR"
    case object = "OBJECT"
    case fieldDefinition = "FIELD_DEFINITION"
    case argumentDefinition = "ARGUMENT_DEFINITION"
    case interface = "INTERFACE"
    case union = "UNION"
    case `enum` = "ENUM"
    case enumValue = "ENUM_VALUE"
    case inputObject = "INPUT_OBJECT"
    case inputFieldDefinition = "INPUT_FIELD_DEFINITION"

    /// Whether the location is in an executable document (as opposed to SDL).
    public var isExecutable: Bool {
        switch self {
        case .query, .mutation, .subscription, .field, .fragmentDefinition, .fragmentSpread,
             .inlineFragment, .variableDefinition:
            return true
        default:
            return false
        }
    }
}

/// A directive definition (spec §3.13).
public struct GraphQLDirective: Sendable {
    /// The name, without `@`.
    public var name: String
    /// Its description, if any.
    public var description: String?
    /// Where it may be used.
    public var locations: [DirectiveLocation]
    /// Its arguments in definition order.
    public var arguments: [GraphQLInputValueDefinition]
    /// Whether it may appear more than once at one location.
    public var isRepeatable: Bool

    /// Creates a directive definition.
    public init(
        name: String,
        locations: [DirectiveLocation],
        arguments: [GraphQLInputValueDefinition] = [],
        description: String? = nil,
        isRepeatable: Bool = false
    ) {
        self.name = name
        self.locations = locations
        self.arguments = arguments
        self.description = description
        self.isRepeatable = isRepeatable
    }

    /// The argument named `name`.
    public func argument(named name: String) -> GraphQLInputValueDefinition? {
        arguments.first { $0.name == name }
    }

    /// Whether this is one of the directives the specification defines.
    public var isSpecified: Bool { GraphQLDirective.specifiedNames.contains(name) }

    /// `@include(if: Boolean!)`.
    public static let include = GraphQLDirective(
        name: "include",
        locations: [.field, .fragmentSpread, .inlineFragment],
        arguments: [GraphQLInputValueDefinition(name: "if", type: .nonNull(.named("Boolean")), description: "Included when true.")],
        description: "Directs the executor to include this field or fragment only when the `if` argument is true."
    )

    /// `@skip(if: Boolean!)`.
    public static let skip = GraphQLDirective(
        name: "skip",
        locations: [.field, .fragmentSpread, .inlineFragment],
        arguments: [GraphQLInputValueDefinition(name: "if", type: .nonNull(.named("Boolean")), description: "Skipped when true.")],
        description: "Directs the executor to skip this field or fragment when the `if` argument is true."
    )

    /// `@deprecated(reason: String = "No longer supported")`.
    public static let deprecated = GraphQLDirective(
        name: "deprecated",
        locations: [.fieldDefinition, .argumentDefinition, .inputFieldDefinition, .enumValue],
        arguments: [
            GraphQLInputValueDefinition(
                name: "reason",
                type: .named("String"),
                defaultValue: .string(GraphQLDirective.defaultDeprecationReason),
                description: "Explains why this element was deprecated, usually also including a suggestion for how to access supported similar data. Formatted using the Markdown syntax, as specified by [CommonMark](https://commonmark.org/)."
            ),
        ],
        description: "Marks an element of a GraphQL schema as no longer supported."
    )

    /// `@specifiedBy(url: String!)`.
    public static let specifiedBy = GraphQLDirective(
        name: "specifiedBy",
        locations: [.scalar],
        arguments: [GraphQLInputValueDefinition(name: "url", type: .nonNull(.named("String")), description: "The URL that specifies the behavior of this scalar.")],
        description: "Exposes a URL that specifies the behavior of this scalar."
    )

    /// `@oneOf` on input objects (current spec draft).
    public static let oneOf = GraphQLDirective(
        name: "oneOf",
        locations: [.inputObject],
        description: "Indicates exactly one field must be supplied and this field must not be `null`."
    )

    /// The reason `@deprecated` uses when none is given.
    public static let defaultDeprecationReason = "No longer supported"

    /// The built-in directives every schema contains, in graphql-js order.
    public static let specified: [GraphQLDirective] = [.include, .skip, .deprecated, .specifiedBy, .oneOf]

    static let specifiedNames: Set<String> = ["include", "skip", "deprecated", "specifiedBy", "oneOf"]
}
