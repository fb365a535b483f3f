public import GraphQL
public import JSON

/// Static limits on an operation, checked after validation and before execution.
///
/// Fragments are expanded (each fragment's figures are computed once and
/// reused, so a "fragment bomb" costs nothing to measure) and all counts
/// saturate instead of overflowing. Introspection fields (`__schema`,
/// `__type`) are not costed; the engine's introspection-depth rule bounds them.
public struct OperationLimits: Sendable, Equatable {
    /// Deepest field nesting; `{ a { b } }` has depth 2. Default 20.
    public var maxDepth: Int
    /// Aliased fields in the expanded operation. Default 30.
    public var maxAliases: Int
    /// Fields in the operation's root selection set (expanded). Default 20.
    public var maxRootFields: Int
    /// Estimated cost: each field costs 1, and a list field multiplies the cost
    /// of its selection by its size argument or `defaultListSize`. Default 10 000.
    public var maxCost: Int
    /// Assumed size of a list field without a size argument. Default 10.
    public var defaultListSize: Int
    /// Arguments whose integer value is a list field's size. Default `first`, `last`, `limit`.
    public var sizeArguments: [String]

    /// Limits with the documented defaults, each overridable.
    public init(
        maxDepth: Int = 20, maxAliases: Int = 30, maxRootFields: Int = 20, maxCost: Int = 10_000,
        defaultListSize: Int = 10, sizeArguments: [String] = ["first", "last", "limit"]
    ) {
        self.maxDepth = maxDepth
        self.maxAliases = maxAliases
        self.maxRootFields = maxRootFields
        self.maxCost = maxCost
        self.defaultListSize = defaultListSize
        self.sizeArguments = sizeArguments
    }

    /// No limits at all (for trusted callers and tests).
    public static let unlimited = OperationLimits(
        maxDepth: .max, maxAliases: .max, maxRootFields: .max, maxCost: .max, defaultListSize: 1
    )
}

/// What one operation measures.
public struct OperationMeasure: Sendable, Equatable {
    /// Deepest field nesting.
    public var depth: Int
    /// Aliased fields.
    public var aliases: Int
    /// Fields at the root.
    public var rootFields: Int
    /// Estimated cost.
    public var cost: Int
    /// Whether the operation selects `__schema` anywhere.
    public var selectsSchemaIntrospection: Bool
    /// The variables list sizes were read from, with the values read as ``OperationAnalysis/sizeKey(_:)``
    /// gives them: the measure holds for any request whose values give the same keys.
    public var sizeVariables: JSONObject = [:]
}

/// Measures operations against a schema.
public enum OperationAnalysis {
    /// What of a size variable's value the measure depends on: the integer, or `null`
    /// for anything else (which reads as the default size). Measures are remembered
    /// per document, so they keep this, never a client's value of any size.
    public static func sizeKey(_ value: JSONValue?) -> JSONValue {
        if case .int? = value, let value { return value }
        return .null
    }

    /// Measures `operation` of `document`; `variables` supply list sizes given by variable.
    public static func measure(
        _ operation: OperationDefinition, in document: Document, schema: GraphQLSchema,
        variables: JSONObject, limits: OperationLimits
    ) -> OperationMeasure {
        var fragments: [String: FragmentDefinition] = [:]
        for definition in document.definitions {
            if case .fragment(let fragment) = definition { fragments[fragment.name.value] = fragment }
        }
        var walker = Walker(schema: schema, fragments: fragments, variables: variables, limits: limits)
        let rootType: String?
        switch operation.operation {
        case .query: rootType = schema.queryTypeName
        case .mutation: rootType = schema.mutationTypeName
        case .subscription: rootType = schema.subscriptionTypeName
        }
        let root = walker.measure(operation.selectionSet, parentType: rootType)
        return OperationMeasure(
            depth: root.depth, aliases: root.aliases, rootFields: root.fields, cost: root.cost,
            selectsSchemaIntrospection: walker.sawSchema, sizeVariables: walker.sizeVariables
        )
    }

    /// The first limit `measure` breaks, as the error to send; `nil` when within limits.
    public static func check(_ measure: OperationMeasure, against limits: OperationLimits) -> GraphQLHTTPError? {
        let checks: [(String, String, Int, Int)] = [
            ("maxDepth", "MAX_DEPTH_EXCEEDED", measure.depth, limits.maxDepth),
            ("maxAliases", "MAX_ALIASES_EXCEEDED", measure.aliases, limits.maxAliases),
            ("maxRootFields", "MAX_ROOT_FIELDS_EXCEEDED", measure.rootFields, limits.maxRootFields),
            ("maxCost", "MAX_COST_EXCEEDED", measure.cost, limits.maxCost),
        ]
        for (name, code, actual, limit) in checks where actual > limit {
            let noun: String
            switch name {
            case "maxDepth": noun = "depth"
            case "maxAliases": noun = "alias count"
            case "maxRootFields": noun = "root field count"
            default: noun = "estimated cost"
            }
            return GraphQLHTTPError(
                status: 400, code: code,
                message: "Operation \(noun) \(actual) exceeds the limit \(name) = \(limit).",
                extensions: ["limit": .string(name), "maximum": .int(Int64(limit)), "actual": .int(Int64(actual))]
            )
        }
        return nil
    }
}

private struct Figures {
    var depth = 0
    var aliases = 0
    var fields = 0
    var cost = 0

    mutating func add(_ other: Figures) {
        depth = max(depth, other.depth)
        aliases = aliases.saturatingAdd(other.aliases)
        fields = fields.saturatingAdd(other.fields)
        cost = cost.saturatingAdd(other.cost)
    }
}

private struct Walker {
    let schema: GraphQLSchema
    let fragments: [String: FragmentDefinition]
    let variables: JSONObject
    let limits: OperationLimits
    var fragmentFigures: [String: Figures] = [:]
    var inProgress: Set<String> = []
    var sawSchema = false
    var sizeVariables = JSONObject()

    init(schema: GraphQLSchema, fragments: [String: FragmentDefinition], variables: JSONObject, limits: OperationLimits) {
        self.schema = schema
        self.fragments = fragments
        self.variables = variables
        self.limits = limits
    }

    /// Figures of a selection set: `depth` counts field levels, `fields` this level's fields.
    mutating func measure(_ selectionSet: SelectionSet, parentType: String?) -> Figures {
        var total = Figures()
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                total.add(measureField(field, parentType: parentType))
            case .inlineFragment(let fragment):
                total.add(measure(fragment.selectionSet, parentType: fragment.typeCondition?.name.value ?? parentType))
            case .fragmentSpread(let spread):
                let name = spread.name.value
                if let known = fragmentFigures[name] {
                    total.add(known)
                } else if let definition = fragments[name], !inProgress.contains(name) {
                    inProgress.insert(name)
                    let figures = measure(definition.selectionSet, parentType: definition.typeCondition.name.value)
                    inProgress.remove(name)
                    fragmentFigures[name] = figures
                    total.add(figures)
                }
            }
        }
        return total
    }

    mutating func measureField(_ field: Field, parentType: String?) -> Figures {
        let name = field.name.value
        var figures = Figures(depth: 1, aliases: field.alias == nil ? 0 : 1, fields: 1, cost: 1)
        if name == "__schema" || name == "__type" {
            if name == "__schema" { sawSchema = true }
            figures.depth = 1 + (field.selectionSet.map { introspectionDepth($0) } ?? 0)
            return figures
        }
        guard let selectionSet = field.selectionSet else { return figures }
        let definition = parentType.flatMap { schema.fieldDefinition(on: $0, named: name) }
        let children = measure(selectionSet, parentType: definition.map { $0.type.namedType })
        figures.depth = 1.saturatingAdd(children.depth)
        figures.aliases = figures.aliases.saturatingAdd(children.aliases)
        var multiplier = 1
        if var type = definition?.type {
            // Each list level multiplies: [[T]] of size n holds n × n items.
            while true {
                if case .nonNull(let inner) = type { type = inner; continue }
                if case .list(let inner) = type {
                    multiplier = multiplier.saturatingMultiply(listSize(field))
                    type = inner
                    continue
                }
                break
            }
        }
        figures.cost = 1.saturatingAdd(multiplier.saturatingMultiply(children.cost))
        return figures
    }

    /// Depth under an introspection field (not costed, but deep nesting still counts).
    mutating func introspectionDepth(_ selectionSet: SelectionSet) -> Int {
        var deepest = 0
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                deepest = max(deepest, 1 + (field.selectionSet.map { introspectionDepth($0) } ?? 0))
            case .inlineFragment(let fragment):
                deepest = max(deepest, introspectionDepth(fragment.selectionSet))
            case .fragmentSpread(let spread):
                let name = spread.name.value
                guard let definition = fragments[name], !inProgress.contains(name) else { continue }
                inProgress.insert(name)
                deepest = max(deepest, introspectionDepth(definition.selectionSet))
                inProgress.remove(name)
            }
        }
        return deepest
    }

    mutating func listSize(_ field: Field) -> Int {
        for argument in field.arguments where limits.sizeArguments.contains(argument.name.value) {
            switch argument.value {
            case .int(let literal):
                if let size = Int(literal.value), size >= 0 { return size }
            case .variable(let variable):
                let name = variable.name.value
                let value = variables[name]
                if sizeVariables[name] == nil { sizeVariables.append(name, OperationAnalysis.sizeKey(value)) }
                if case .int(let size)? = value, size >= 0 { return Int(clamping: size) }
            default:
                break
            }
        }
        return limits.defaultListSize
    }
}

extension Int {
    func saturatingAdd(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }

    func saturatingMultiply(_ other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? .max : product
    }
}
