// The GraphQL abstract syntax tree, after the node kinds of the specification
// (and graphql-js). Every node is a Sendable value type and carries its
// `Location`: byte offsets into the UTF-8 source. Lines and UTF-16 columns are
// computed on demand from the document's `Source` (see Source.swift).
//
// The tree is immutable in practice: validation walks it, execution reads it.
// Synthesised `==` compares locations too; use `structurallyEquals(_:)` on
// values and types to compare what was written, wherever it was written.
//
// Nodes have no public initialisers: the parser builds them with the
// synthesised (module-internal) memberwise ones. An explicit `init` that
// assigns each property made the optimiser copy and destroy every `Field`
// once more (about a quarter of parse time, Swift 6.3); the memberwise one
// builds the value in place. Other targets get trees from `Parser.parse`.

/// Start and end of a node as byte offsets into the UTF-8 source (`end` exclusive).
///
/// Stored as 32-bit offsets to keep nodes small (the parser refuses documents
/// over 4 GiB whatever the limits say).
public struct Location: Sendable, Hashable {
    private var storedStart: UInt32
    private var storedEnd: UInt32

    /// Offset of the node's first byte.
    public var start: Int {
        get { Int(storedStart) }
        set { storedStart = UInt32(clamping: newValue) }
    }

    /// Offset just past the node's last byte.
    public var end: Int {
        get { Int(storedEnd) }
        set { storedEnd = UInt32(clamping: newValue) }
    }

    /// A location spanning `start..<end` (each clamped to 0...UInt32.max).
    @inline(__always)
    public init(start: Int, end: Int) {
        storedStart = UInt32(clamping: start)
        storedEnd = UInt32(clamping: end)
    }
}

/// A name: of a field, type, argument, directive, fragment, variable, ...
public struct Name: Sendable, Hashable {
    /// The name as written (`[_A-Za-z][_0-9A-Za-z]*`).
    public var value: String
    public var loc: Location
}

// MARK: - Document

/// A parsed GraphQL document: executable definitions, type-system definitions, or both.
public struct Document: Sendable, Equatable {
    public var definitions: [Definition]
    public var loc: Location
    /// The text the document was parsed from, to turn locations into line:column.
    public var source: Source
    /// Tokens the parser read (0 for a document built otherwise): what its tree costs
    /// in memory grows with it, so the document cache weighs entries by it.
    public var tokenCount: Int = 0
}

/// One top-level definition of a document.
public enum Definition: Sendable, Hashable {
    case operation(OperationDefinition)
    case fragment(FragmentDefinition)
    case schema(SchemaDefinition)
    case schemaExtension(SchemaExtension)
    case type(TypeDefinition)
    case typeExtension(TypeExtension)
    case directive(DirectiveDefinition)

    /// The definition's location.
    public var loc: Location {
        switch self {
        case .operation(let node): node.loc
        case .fragment(let node): node.loc
        case .schema(let node): node.loc
        case .schemaExtension(let node): node.loc
        case .type(let node): node.loc
        case .typeExtension(let node): node.loc
        case .directive(let node): node.loc
        }
    }

    /// True for operations and fragments (the spec's ExecutableDefinition).
    public var isExecutable: Bool {
        switch self {
        case .operation, .fragment: true
        default: false
        }
    }
}

// MARK: - Executable definitions

/// `query`, `mutation` or `subscription`.
public enum OperationType: String, Sendable, Hashable {
    case query
    case mutation
    case subscription
}

/// An operation; `query { ... }` and the shorthand `{ ... }` both parse to `.query`.
public struct OperationDefinition: Sendable, Hashable {
    public var operation: OperationType
    public var name: Name?
    public var variableDefinitions: [VariableDefinition]
    public var directives: [Directive]
    public var selectionSet: SelectionSet
    public var loc: Location
}

/// `$name: Type = default @directives` in an operation's header.
public struct VariableDefinition: Sendable, Hashable {
    public var variable: Variable
    public var type: TypeReference
    public var defaultValue: Value?
    public var directives: [Directive]
    public var loc: Location
}

/// `$name` (as a value or in a variable definition).
public struct Variable: Sendable, Hashable {
    /// The name without the `$`.
    public var name: Name
    public var loc: Location
}

/// `{ selection ... }`: never empty when parsed.
public struct SelectionSet: Sendable, Hashable {
    public var selections: [Selection]
    public var loc: Location
}

/// One entry of a selection set.
public enum Selection: Sendable, Hashable {
    case field(Field)
    case fragmentSpread(FragmentSpread)
    case inlineFragment(InlineFragment)

    public var loc: Location {
        switch self {
        case .field(let node): node.loc
        case .fragmentSpread(let node): node.loc
        case .inlineFragment(let node): node.loc
        }
    }

    /// The selection's directives.
    public var directives: [Directive] {
        switch self {
        case .field(let node): node.directives
        case .fragmentSpread(let node): node.directives
        case .inlineFragment(let node): node.directives
        }
    }
}

/// `alias: name(arguments) @directives { selections }`.
public struct Field: Sendable, Hashable {
    public var alias: Name?
    public var name: Name
    public var arguments: [Argument]
    public var directives: [Directive]
    public var selectionSet: SelectionSet?
    public var loc: Location

    /// The key of this field in the response: the alias if any, else the name.
    public var responseKey: String { alias?.value ?? name.value }
}

/// `name: value` in a field's or directive's argument list.
public struct Argument: Sendable, Hashable {
    public var name: Name
    public var value: Value
    public var loc: Location
}

/// `...FragmentName @directives`.
public struct FragmentSpread: Sendable, Hashable {
    public var name: Name
    public var directives: [Directive]
    public var loc: Location
}

/// `... on Type @directives { selections }` (the type condition is optional).
public struct InlineFragment: Sendable, Hashable {
    public var typeCondition: NamedType?
    public var directives: [Directive]
    public var selectionSet: SelectionSet
    public var loc: Location
}

/// `fragment Name on Type @directives { selections }`.
public struct FragmentDefinition: Sendable, Hashable {
    public var name: Name
    public var typeCondition: NamedType
    public var directives: [Directive]
    public var selectionSet: SelectionSet
    public var loc: Location
}

/// `@name(arguments)`.
public struct Directive: Sendable, Hashable {
    public var name: Name
    public var arguments: [Argument]
    public var loc: Location
}

// MARK: - Values

/// A literal or variable in a document. Numbers keep their source text
/// (exact; the executor coerces them to the expected type).
public indirect enum Value: Sendable, Hashable {
    case variable(Variable)
    /// Source text of an integer, e.g. `-12`.
    case int(IntValue)
    /// Source text of a float, e.g. `1.5e3`.
    case float(FloatValue)
    case string(StringValue)
    case boolean(BooleanValue)
    case null(NullValue)
    case enumValue(EnumValue)
    case list(ListValue)
    case object(ObjectValue)

    public var loc: Location {
        switch self {
        case .variable(let node): node.loc
        case .int(let node): node.loc
        case .float(let node): node.loc
        case .string(let node): node.loc
        case .boolean(let node): node.loc
        case .null(let node): node.loc
        case .enumValue(let node): node.loc
        case .list(let node): node.loc
        case .object(let node): node.loc
        }
    }

    /// Same value as written, ignoring locations and whether a string was a block string.
    public func structurallyEquals(_ other: Value) -> Bool {
        switch (self, other) {
        case (.variable(let a), .variable(let b)): return a.name.value == b.name.value
        case (.int(let a), .int(let b)): return a.value == b.value
        case (.float(let a), .float(let b)): return a.value == b.value
        case (.string(let a), .string(let b)): return a.value == b.value
        case (.boolean(let a), .boolean(let b)): return a.value == b.value
        case (.null, .null): return true
        case (.enumValue(let a), .enumValue(let b)): return a.value == b.value
        case (.list(let a), .list(let b)):
            guard a.values.count == b.values.count else { return false }
            for (x, y) in zip(a.values, b.values) where !x.structurallyEquals(y) { return false }
            return true
        case (.object(let a), .object(let b)):
            guard a.fields.count == b.fields.count else { return false }
            for (x, y) in zip(a.fields, b.fields) {
                guard x.name.value == y.name.value, x.value.structurallyEquals(y.value) else { return false }
            }
            return true
        default:
            return false
        }
    }
}

/// An integer literal; `value` is its source text (`-?(0|[1-9][0-9]*)`).
public struct IntValue: Sendable, Hashable {
    public var value: String
    public var loc: Location
}

/// A float literal; `value` is its source text.
public struct FloatValue: Sendable, Hashable {
    public var value: String
    public var loc: Location
}

/// A string literal; `value` is the decoded string (escapes resolved, block strings dedented).
public struct StringValue: Sendable, Hashable {
    public var value: String
    /// Written as a `"""block string"""` (the printer keeps the form).
    public var block: Bool
    public var loc: Location
}

/// `true` or `false`.
public struct BooleanValue: Sendable, Hashable {
    public var value: Bool
    public var loc: Location
}

/// `null`.
public struct NullValue: Sendable, Hashable {
    public var loc: Location
}

/// An enum value: a name other than `true`, `false`, `null`.
public struct EnumValue: Sendable, Hashable {
    public var value: String
    public var loc: Location
}

/// `[value, ...]`.
public struct ListValue: Sendable, Hashable {
    public var values: [Value]
    public var loc: Location
}

/// `{name: value, ...}`.
public struct ObjectValue: Sendable, Hashable {
    public var fields: [ObjectField]
    public var loc: Location
}

/// One `name: value` of an object value.
public struct ObjectField: Sendable, Hashable {
    public var name: Name
    public var value: Value
    public var loc: Location
}

// MARK: - Type references

/// A type as written in a document: `Name`, `[Type]`, `Type!`.
public indirect enum TypeReference: Sendable, Hashable {
    case named(NamedType)
    case list(ListType)
    /// Wraps a named or list type, never another non-null (the parser guarantees it).
    case nonNull(NonNullType)

    public var loc: Location {
        switch self {
        case .named(let node): node.loc
        case .list(let node): node.loc
        case .nonNull(let node): node.loc
        }
    }

    /// The innermost named type.
    public var namedType: NamedType {
        switch self {
        case .named(let node): node
        case .list(let node): node.type.namedType
        case .nonNull(let node): node.type.namedType
        }
    }

    /// Same type as written, ignoring locations.
    public func structurallyEquals(_ other: TypeReference) -> Bool {
        switch (self, other) {
        case (.named(let a), .named(let b)): a.name.value == b.name.value
        case (.list(let a), .list(let b)): a.type.structurallyEquals(b.type)
        case (.nonNull(let a), .nonNull(let b)): a.type.structurallyEquals(b.type)
        default: false
        }
    }
}

/// A reference to a type by name.
public struct NamedType: Sendable, Hashable {
    public var name: Name
    public var loc: Location
}

/// `[Type]`.
public struct ListType: Sendable, Hashable {
    public var type: TypeReference
    public var loc: Location
}

/// `Type!`.
public struct NonNullType: Sendable, Hashable {
    public var type: TypeReference
    public var loc: Location
}
