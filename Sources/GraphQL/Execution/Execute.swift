public import JSON

/// Executes a validated document (spec §6 "Execution"): selects the operation,
/// coerces the variables, runs the fields (query and subscription fields
/// concurrently where resolvers are async, mutation root fields one after the
/// other) and returns the ordered result with its errors.
public func execute(schema: GraphQLSchema, request: ExecutionRequest) async -> ExecutionResult {
    await execute(schema: schema, request: request, plans: nil)
}

/// ``execute(schema:request:)`` with the response written as JSON while
/// executing (no result tree): what a server sends. The bytes are those
/// `JSONWriter.write(result.json)` gives for the same execution.
public func executeEncoded(schema: GraphQLSchema, request: ExecutionRequest) async -> EncodedResponse {
    switch startExecution(schema: schema, request: request, plans: nil, output: ByteOutput.response()) {
    case .failed(let errors): return EncodedResponse(errors: errors)
    case .finished(let executor): return executor.encoded()
    case .running(let running): return await running.finish().encoded()
    }
}

/// Executes with plans cached per document (see ``PreparedDocument``).
func execute(schema: GraphQLSchema, request: ExecutionRequest, plans: PlanCache?) async -> ExecutionResult {
    switch startExecution(schema: schema, request: request, plans: plans, output: TreeOutput()) {
    case .failed(let errors): return ExecutionResult(data: nil, errors: errors)
    case .finished(let executor): return executor.result()
    case .running(let running): return await running.finish().result()
    }
}

/// An execution begun without waiting: not started (request errors), finished
/// (the executor's output holds the data), or with work that must be awaited.
enum ExecutionStart<Output: ResponseOutput & ~Copyable>: ~Copyable {
    case failed([GraphQLError])
    case finished(Executor<Output>)
    case running(RunningExecution<Output>)
}

/// The part of an execution left after its synchronous start: pending async work
/// of a query, or a whole mutation (whose root fields run one after the other).
struct RunningExecution<Output: ResponseOutput & ~Copyable>: ~Copyable {
    enum Stage {
        case draining(ResultNode)
        case mutation(SelectionPlan, rootValue: any Sendable)
    }

    var executor: Executor<Output>
    let stage: Stage

    /// Awaits the remaining work; the returned executor's output holds the data.
    consuming func finish() async -> Executor<Output> {
        let stage = self.stage
        var executor = self.executor
        switch stage {
        case .draining(let node):
            await executor.drain()
            executor.out.truncate(to: executor.dataStart)
            if !node.finish(into: &executor.out) { executor.out.null() }
        case .mutation(let root, let rootValue):
            await executor.executeSerially(root, rootValue: rootValue)
        }
        return executor
    }
}

extension Executor where Output == TreeOutput {
    /// The finished result (the output holds the data).
    consuming func result() -> ExecutionResult {
        ExecutionResult(data: out.root, errors: errors)
    }
}

extension Executor where Output == ByteOutput {
    /// The finished response (the output holds `{"data":` and the data).
    consuming func encoded() -> EncodedResponse {
        EncodedResponse(body: out.closeResponse(), errors: errors)
    }
}

/// Selects the operation, coerces variables, plans (or reuses the cached plan) and
/// completes every field that needs no waiting. A query whose resolvers all return
/// at once finishes here; anything else comes back as ``RunningExecution``.
func startExecution<Output: ResponseOutput & ~Copyable>(
    schema: GraphQLSchema, request: ExecutionRequest, plans: PlanCache?, output: consuming Output
) -> ExecutionStart<Output> {
    let document = request.document
    let selected: SelectedOperation
    switch SelectedOperation.select(in: document, named: request.operationName, schema: schema, plans: plans) {
    case .success(let found): selected = found
    case .failure(let error): return .failed([error])
    }
    let variables: JSONObject
    switch selected.variables.coerce(request.variables, schema: schema, source: document.source) {
    case .success(let coerced): variables = coerced
    case .failure(let failure): return .failed(failure.errors)
    }
    let rootType: GraphQLObjectType?
    switch selected.kind {
    case .query: rootType = schema.queryType
    case .mutation: rootType = schema.mutationType
    case .subscription: rootType = schema.subscriptionType
    }
    guard let rootType else {
        let error = GraphQLError(
            "Schema is not configured to execute \(selected.kind.rawValue) operation.",
            locations: document.source.locations(at: [selected.start])
        )
        return .failed([error])
    }

    let plan: OperationPlan
    let key = plans?.key(operation: request.operationName, variables: variables)
    if let key, let cached = plans?.plan(for: key) {
        plan = cached
    } else {
        var planner = Planner(schema: schema, document: document, variables: variables)
        do {
            plan = try planner.plan(selected.operation, rootType: rootType)
        } catch {
            return .failed([GraphQLError(error.message)])
        }
        if let key { plans?.store(plan, for: key) }
    }

    let scope = RequestScope(schema: schema, context: request.context, variables: variables, loaders: request.loaders)
    var executor = Executor(schema: schema, source: document.source, variables: variables, scope: scope, plan: plan, output: output)
    if selected.kind == .mutation {
        return .running(RunningExecution(executor: executor, stage: .mutation(plan.root, rootValue: request.rootValue)))
    }
    switch executor.executeFields(plan.root, source: ObjectSource(request.rootValue)) {
    case .written:
        break
    case .node(let node):
        return .running(RunningExecution(executor: executor, stage: .draining(node)))
    case .pending, .failed:
        executor.out.truncate(to: executor.dataStart)
        executor.out.null()
    }
    return .finished(executor)
}

/// Picks the operation to run (spec §6.1 "GetOperation").
public func selectOperation(in document: Document, named name: String?) -> Result<OperationDefinition, GraphQLError> {
    var found: OperationDefinition?
    var count = 0
    for case .operation(let operation) in document.definitions {
        count += 1
        if let name {
            if operation.name?.value == name { return .success(operation) }
        } else if found == nil {
            found = operation
        }
    }
    if let name { return .failure(GraphQLError("Unknown operation named \"\(name)\".")) }
    guard count > 0, let found else { return .failure(GraphQLError("Must provide an operation.")) }
    guard count == 1 else { return .failure(GraphQLError("Must provide operation name if query contains multiple operations.")) }
    return .success(found)
}

/// Coerces the request's variables to the operation's definitions (spec §6.1.2
/// "CoerceVariableValues"), with graphql-js's messages.
public func coerceVariableValues(
    schema: GraphQLSchema,
    operation: OperationDefinition,
    inputs: JSONObject,
    source: Source,
    maxErrors: Int = 50
) -> Result<JSONObject, GraphQLRequestErrors> {
    VariablesPlan(schema: schema, operation: operation).coerce(inputs, schema: schema, source: source, maxErrors: maxErrors)
}

/// What coercing an operation's variables needs that does not depend on the
/// request: each definition's type, whether it is an input type, and its
/// default value already coerced. Made once per document and operation (see
/// ``PlanCache``), so a request only coerces the values it brings.
final class VariablesPlan: Sendable {
    struct Entry: Sendable {
        let name: String
        let type: GraphQLTypeReference
        let isInputType: Bool
        let hasDefault: Bool
        /// The default value coerced to `type`; `nil` when it has none or it does not coerce.
        let coercedDefault: JSONValue?
        /// The built-in scalar the type names (through one non-null), when the
        /// schema's scalar of that name is the built-in: a value that is already
        /// of its form is taken as it is.
        let builtin: BuiltinScalar?
        /// Offsets of the definition and of its type, for error locations.
        let start: Int
        let typeStart: Int
    }

    let entries: [Entry]

    init(schema: GraphQLSchema, operation: OperationDefinition) {
        entries = operation.variableDefinitions.map { definition in
            let type = ValueCoercion.typeReference(definition.type)
            let facts = schema.planning.inputFacts[type.namedType]
            let isInputType = facts?.isInputType ?? false
            var coercedDefault: JSONValue?
            if isInputType, let defaultValue = definition.defaultValue {
                coercedDefault = ValueCoercion.coerceLiteral(defaultValue, to: type, in: schema, variables: nil)
            }
            var named = type
            if case .nonNull(let inner) = named { named = inner }
            var builtin: BuiltinScalar?
            if case .named = named { builtin = facts?.builtin }
            return Entry(name: definition.variable.name.value, type: type, isInputType: isInputType,
                         hasDefault: definition.defaultValue != nil, coercedDefault: coercedDefault, builtin: builtin,
                         start: definition.loc.start, typeStart: definition.type.loc.start)
        }
    }

    /// The coerced variables of one request, or every problem found (up to `maxErrors`).
    func coerce(_ inputs: JSONObject, schema: GraphQLSchema, source: Source, maxErrors: Int = 50) -> Result<JSONObject, GraphQLRequestErrors> {
        if servesAsIs(inputs) { return .success(inputs) }
        var errors: [GraphQLError] = []
        var coerced = JSONObject(capacity: entries.count)
        for entry in entries {
            let name = entry.name
            let type = entry.type
            // Computed only for an error: finding a line and column scans the text.
            var location: [SourceLocation] { source.locations(at: [entry.start]) }
            guard entry.isInputType else {
                errors.append(GraphQLError(
                    "Variable \"$\(name)\" expected value of type \"\(type)\" which cannot be used as an input type.",
                    locations: source.locations(at: [entry.typeStart])
                ))
                continue
            }
            guard let value = inputs[name] else {
                if entry.hasDefault {
                    if let value = entry.coercedDefault { coerced.append(name, value) }
                } else if type.isNonNull {
                    errors.append(GraphQLError("Variable \"$\(name)\" of required type \"\(type)\" was not provided.", locations: location))
                }
                continue
            }
            if value == .null, type.isNonNull {
                errors.append(GraphQLError("Variable \"$\(name)\" of non-null type \"\(type)\" must not be null.", locations: location))
                continue
            }
            if let builtin = entry.builtin, builtin.servesAsIs(value) {
                // Exactly what coercion would return (no problems possible).
                coerced.append(name, value)
                continue
            }
            var problems: [ValueCoercion.InputProblem] = []
            let result = ValueCoercion.coerceInput(value, to: type, in: schema, path: [], problems: &problems)
            for problem in problems {
                var prefix = "Variable \"$\(name)\" got invalid value \(inspectValue(problem.value))"
                if !problem.path.isEmpty {
                    prefix += " at \"\(name)" + problem.path.map {
                        switch $0 {
                        case .key(let key): return "." + key
                        case .index(let index): return "[\(index)]"
                        }
                    }.joined() + "\""
                }
                errors.append(GraphQLError(prefix + "; " + problem.message, locations: location))
                if errors.count >= maxErrors {
                    errors.append(GraphQLError("Too many errors processing variables, error limit reached. Execution aborted."))
                    return .failure(GraphQLRequestErrors(errors: errors))
                }
            }
            if problems.isEmpty { coerced.append(name, result) }
        }
        return errors.isEmpty ? .success(coerced) : .failure(GraphQLRequestErrors(errors: errors))
    }

    /// Whether `inputs` are already exactly what ``coerce(_:schema:source:maxErrors:)``
    /// would return: one non-null value per definition, in the definitions' order, each
    /// a built-in scalar's value of its own form. The common request then keeps its
    /// object (no new one, no copies of names and values).
    private func servesAsIs(_ inputs: JSONObject) -> Bool {
        guard inputs.count == entries.count else { return false }
        for (position, entry) in entries.enumerated() {
            guard entry.isInputType, let builtin = entry.builtin, inputs.keys[position] == entry.name else { return false }
            let value = inputs.values[position]
            guard value != .null, builtin.servesAsIs(value) else { return false }
        }
        return true
    }
}

extension ObjectSource {
    /// The root value as a selection source (its fields read like any value's:
    /// there is no value further up the stack to keep JSON views alive).
    init(_ value: any Sendable) {
        self = .value(value)
    }
}

extension Executor where Output: ~Copyable {
    /// Runs pending work concurrently until none is left; completes each result on this task.
    mutating func drain() async {
        // One pending item and nothing else: await it inline, no child task.
        while pending.count == 1 {
            let work = pending.removeLast()
            let result: Result<(any Sendable)?, any Error>
            do { result = .success(try await work.deferred.run()) } catch { result = .failure(error) }
            resume(work, with: result)
        }
        guard !pending.isEmpty else { return }
        await withTaskGroup(of: (Int, Result<(any Sendable)?, any Error>).self) { group in
            var inFlight: [Int: PendingWork] = [:]
            var nextID = 0
            func launch() {
                let batch = pending
                pending.removeAll()
                for work in batch {
                    let id = nextID
                    nextID += 1
                    inFlight[id] = work
                    let run = work.deferred.run
                    group.addTask {
                        do { return (id, .success(try await run())) } catch { return (id, .failure(error)) }
                    }
                }
            }
            launch()
            while let (id, result) = await group.next() {
                guard let work = inFlight.removeValue(forKey: id) else { continue }
                resume(work, with: result)
                launch()
            }
        }
    }

    /// Completes a pending field or list item with its awaited value.
    mutating func resume(_ work: PendingWork, with result: Result<(any Sendable)?, any Error>) {
        restorePath(work.path)
        let mark = out.position
        let completed: Completed
        switch result {
        case .success(let raw):
            completed = complete(work.level, work.plan, raw)
        case .failure(let error):
            record(FieldError(wrapping: error), work.plan)
            completed = failedAt(mark, work.level, work.plan)
        }
        switch completed {
        case .written:
            work.node.slots[work.slot] = out.take(from: mark)
        case .node(let child):
            work.node.slots[work.slot] = .node(child, nonNull: work.plan.shape.isNonNull(work.level))
        case .pending(let deferred):
            pending.append(PendingWork(node: work.node, slot: work.slot, level: work.level, plan: work.plan, path: work.path, deferred: deferred))
        case .failed:
            out.truncate(to: mark)
            work.node.slots[work.slot] = .failed
        }
    }

    /// Mutation root fields, each finished before the next starts (spec §6.2.2);
    /// the data is then in the output.
    mutating func executeSerially(_ selection: SelectionPlan, rootValue: any Sendable) async {
        let node = ResultNode(isList: false, keys: selection.responseKeys)
        let start = out.position
        let source = ObjectSource(rootValue)
        out.beginObject()
        for position in 0..<selection.count {
            let plan = selection.field(position)
            pathSteps.removeAll(keepingCapacity: true)
            out.key(plan, first: position == 0)
            pushField(plan)
            let completed = executeField(plan, source: source)
            switch completed {
            case .written:
                out.spill(from: start, into: node)
            case .failed:
                out.truncate(to: start)
                out.null()
                return
            case .node(let child):
                out.spill(from: start, into: node)
                node.slots.append(.node(child, nonNull: plan.shape.isNonNull(0)))
            case .pending(let deferred):
                out.spill(from: start, into: node)
                node.slots.append(.pending)
                pending.append(PendingWork(node: node, slot: node.slots.count - 1, level: 0, plan: plan, path: currentPath(), deferred: deferred))
            }
            pop()
            await drain()
            if case .failed? = node.slots.last {
                out.truncate(to: start)
                out.null()
                return
            }
        }
        out.endPartial(isList: false)
        out.spill(from: start, into: node)
        if !node.finish(into: &out) { out.null() }
    }
}
