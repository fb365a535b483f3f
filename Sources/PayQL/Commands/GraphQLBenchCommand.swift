#if canImport(Glibc)
import Glibc
#endif
import GraphQL
import JSON

/// `payql graphql bench`: PayQL's GraphQL engine on the workload of
/// `Benchmarks/graphql` (schema, query, variables, data.json): ops/s for parse,
/// validate, execute, uncached parse+validate+execute and the cached path, and
/// execute and the cached path to the response's JSON bytes (`execute+json`,
/// `cached+json`: what a server does per request).
///
/// Options: `--workload DIR` (default `../shared/bench/graphql`, env
/// `PAYQL_WORKLOAD`), `--seconds N` of CPU time per measurement (default 3), `--check`
/// (only compare the response with `expected_result.json`), `--json` (one JSON
/// object per line instead of a table), `--only PHASE` (measure one phase).
enum GraphQLBenchCommand {
    static let usage = """
    usage: payql graphql bench [--workload ../shared/bench/graphql] [--seconds 3] [--check] [--json]
                               [--only parse|validate|execute|uncached|cached|execute+json|cached+json]
    """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let options = try Options(arguments, flags: ["check", "json"])
        if options.wantsHelp {
            print(usage)
            return 0
        }
        let directory = options.string("workload") ?? "../shared/bench/graphql"
        let seconds = try options.int("seconds", default: 3)
        guard seconds > 0 else { throw UsageError("--seconds must be positive") }

        let sdl = try readText(directory + "/schema.graphql")
        let query = try readText(directory + "/query.graphql")
        let data = try parseJSON(directory + "/data.json")
        let variables = try parseJSON(directory + "/variables.json").objectValue ?? [:]
        let expected = try parseJSON(directory + "/expected_result.json")

        let schema = try BenchWorkload.schema(sdl: sdl, data: data)
        let engine = GraphQLEngine(schema: schema, cacheCapacity: 0)
        let cachedEngine = GraphQLEngine(schema: schema, cacheCapacity: 100)
        let request = GraphQLRequest(query: query, variables: variables)

        // The response must be graphql-js's before its speed means anything.
        let response = await engine.execute(request)
        guard response.json == expected else {
            printError("payql graphql bench: response differs from expected_result.json:\n" + JSONWriter.string(response.json))
            return 1
        }
        // The response written straight to bytes must be the tree's JSON, byte for byte.
        let encoded = await cachedEngine.executeEncoded(request).body()
        guard encoded == JSONWriter.write(response.json) else {
            printError("payql graphql bench: encoded response differs:\n" + String(decoding: encoded, as: UTF8.self))
            return 1
        }
        if try options.bool("check") {
            print("response matches expected_result.json")
            return 0
        }

        let document = try Parser.parse(query)
        guard validate(schema: schema, document: document).isEmpty else {
            printError("payql graphql bench: the workload query does not validate")
            return 1
        }
        let executionRequest = ExecutionRequest(document: document, variables: variables)
        // `--only PHASE` measures one phase (for profiling).
        let only = options.string("only")
        func wanted(_ phase: String) -> Bool { only == nil || only == phase }
        var results: [(String, Rate)] = []
        if wanted("parse") { results.append(("parse", measure(seconds) { _ = try? Parser.parse(query) })) }
        if wanted("validate") { results.append(("validate", measure(seconds) { _ = validate(schema: schema, document: document) })) }
        if wanted("execute") {
            results.append(("execute", await measureAsync(seconds) { _ = await execute(schema: schema, request: executionRequest) }))
        }
        if wanted("uncached") { results.append(("uncached", await measureAsync(seconds) { _ = await engine.execute(request) })) }
        if wanted("cached") { results.append(("cached", await measureAsync(seconds) { _ = await cachedEngine.execute(request) })) }
        // What a server does per request: the response as JSON bytes.
        if wanted("execute+json") {
            results.append(("execute+json", await measureAsync(seconds) {
                _ = await executeEncoded(schema: schema, request: executionRequest).body()
            }))
        }
        if wanted("cached+json") {
            results.append(("cached+json", await measureAsync(seconds) { _ = await cachedEngine.executeEncoded(request).body() }))
        }

        let asJSON = try options.bool("json")
        for (phase, rate) in results {
            if asJSON {
                print("{\"engine\":\"payql\",\"phase\":\"\(phase)\",\"ops\":\(Int(rate.cpu)),\"wallOps\":\(Int(rate.wall))}")
            } else {
                print(phase.padding(12) + String(Int(rate.cpu)).padding(10) + "ops per CPU second  " + String(Int(rate.wall)) + " ops per wall second")
            }
        }
        return 0
    }

    /// One measurement: operations per wall-clock second and per second of CPU
    /// time used by the process (the figure that survives a busy machine).
    struct Rate {
        var wall: Double
        var cpu: Double
    }

    /// Runs `body` repeatedly for about `seconds` of CPU time.
    static func measure(_ seconds: Int, _ body: () -> Void) -> Rate {
        for _ in 0..<200 { body() }
        let startWall = ContinuousClock.now
        let startCPU = processCPUSeconds()
        var count = 0
        while true {
            for _ in 0..<64 { body() }
            count += 64
            let cpu = processCPUSeconds() - startCPU
            if cpu >= Double(seconds) {
                return Rate(wall: Double(count) / (ContinuousClock.now - startWall).seconds, cpu: Double(count) / cpu)
            }
        }
    }

    /// The async twin of ``measure(_:_:)``. Runs off the main actor, as a server's
    /// request tasks do, so each call does not hop between executors.
    static func measureAsync(_ seconds: Int, _ body: @escaping @Sendable () async -> Void) async -> Rate {
        await Task.detached { await measureLoop(seconds, body) }.value
    }

    private static func measureLoop(_ seconds: Int, _ body: @Sendable () async -> Void) async -> Rate {
        for _ in 0..<200 { await body() }
        let startWall = ContinuousClock.now
        let startCPU = processCPUSeconds()
        var count = 0
        while true {
            for _ in 0..<64 { await body() }
            count += 64
            let cpu = processCPUSeconds() - startCPU
            if cpu >= Double(seconds) {
                return Rate(wall: Double(count) / (ContinuousClock.now - startWall).seconds, cpu: Double(count) / cpu)
            }
        }
    }

    /// CPU time (user + system) the process has used, in seconds.
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func parseJSON(_ path: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(try readText(path))
        } catch let error as JSONError {
            throw UsageError("\(path): \(error)")
        }
    }

    static func readText(_ path: String) throws -> String {
        guard let file = fopen(path, "rb") else { throw UsageError("cannot open '\(path)' (use --workload DIR)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The workload's resolvers, per the comment atop its schema: look-ups by id in
/// data.json, property access for every other field, `__typename` for abstract types.
enum BenchWorkload {
    final class Store: Sendable {
        let orders: [String: JSONValue]
        let customers: [String: JSONValue]
        let payments: [String: JSONValue]

        init(data: JSONValue) {
            func index(_ key: String) -> [String: JSONValue] {
                var result: [String: JSONValue] = [:]
                for item in data[key]?.arrayValue ?? [] {
                    if let id = item["id"]?.stringValue { result[id] = item }
                }
                return result
            }
            orders = index("orders")
            customers = index("customers")
            payments = index("payments")
        }
    }

    static func schema(sdl: String, data: JSONValue) throws -> GraphQLSchema {
        let store = Store(data: data)
        var resolvers = SchemaResolvers()
        resolvers.field("Query", "order", .sync { input in
            input[argument: "id"]?.stringValue.flatMap { store.orders[$0] }
        })
        resolvers.field("Query", "node", .sync { input in
            guard let id = input[argument: "id"]?.stringValue else { return nil }
            return store.orders[id] ?? store.customers[id] ?? store.payments[id]
        })
        resolvers.field("Order", "customer", .sync { input in
            guard let source = input.source as? JSONValue, let id = source["customerId"]?.stringValue else { return nil }
            return store.customers[id]
        })
        resolvers.field("Order", "lineItems", .sync { input in
            guard let source = input.source as? JSONValue, let items = source["lineItems"]?.arrayValue else { return nil }
            let first = Int(input[argument: "first"]?.intValue ?? Int64(items.count))
            return JSONValue.array(Array(items.prefix(max(0, first))))
        })
        resolvers.field("Order", "payments", .sync { input in
            guard let source = input.source as? JSONValue, let ids = source["paymentIds"]?.arrayValue else { return nil }
            var payments = ids.compactMap { $0.stringValue.flatMap { store.payments[$0] } }
            if let status = input[argument: "status"]?.stringValue {
                payments = payments.filter { $0["status"]?.stringValue == status }
            }
            let first = Int(input[argument: "first"]?.intValue ?? Int64(payments.count))
            return JSONValue.array(Array(payments.prefix(max(0, first))))
        })
        do {
            return try GraphQLSchema(sdl: sdl, resolvers: resolvers)
        } catch {
            throw UsageError("schema.graphql: \(error)")
        }
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    fileprivate var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}

extension String {
    /// The string padded with spaces to `width` characters.
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
