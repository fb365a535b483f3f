import Foundation
import Postgres

/// `payql-bench postgres [--database-url URL | --data-dir DIR] [--tasks 1,8,32] [--duration S]
/// [--rounds R] [--scale N] [--modes pipelined,exclusive] [--pipelined-connections N] [--no-pgbench]`
///
/// SELECT by primary key (`pgbench -S`'s statement on `pgbench_accounts`) through
/// `PostgresPool` with N concurrent tasks, side by side with `pgbench -S`
/// (simple and `-M prepared`) at the same client counts on the same database in
/// the same run. Without a URL it starts the embedded cluster in `--data-dir`.
/// Modes: `pipelined` = `pool.query` (statements pipelined over the pool's
/// pipelined connections); `exclusive` = `withConnection` per statement, one
/// connection per task (no pipelining); a `-io` suffix (`pipelined-io`) runs
/// the tasks on the pool's I/O thread (`withTaskExecutorPreference(pool.taskExecutor)`). Each contender runs S seconds (the
/// first second not counted) per round, in turns, R rounds; the table shows
/// each cell's median, the JSON lines every round.
enum PostgresBenchmark {
    struct Options {
        var databaseURL: String?
        var dataDirectory = NSTemporaryDirectory() + "payql-bench-postgres"
        var tasks = [1, 8, 32]
        var duration = 5
        var scale = 10
        var modes = ["pipelined", "pipelined-io", "exclusive"]
        var pipelinedConnections = 2
        var pgbench = true
        var rounds = 3
    }

    static func run(_ arguments: [String]) async throws {
        let options = try parse(arguments)
        var cluster: EmbeddedPostgres?
        let connectionString: String
        if let url = options.databaseURL {
            connectionString = url
        } else {
            var configuration = EmbeddedPostgresConfiguration()
            configuration.dataDirectory = options.dataDirectory
            configuration.database = "bench"
            configuration.serverSettings = ["max_connections": "200", "shared_buffers": "128MB"]
            let started = try await EmbeddedPostgres.start(configuration)
            cluster = started
            connectionString = started.connectionString()
        }
        do {
            try await compare(connectionString: connectionString, options: options)
        } catch {
            try? await cluster?.stop()
            throw error
        }
        try await cluster?.stop()
    }

    /// Prints the table: each client count through the pool (each mode), then pgbench.
    static func compare(connectionString: String, options: Options) async throws {
        let pgbenchPath = try findPgbench()
        try await prepareTables(connectionString: connectionString, scale: options.scale, pgbench: pgbenchPath)
        let accounts = Int32(options.scale * 100_000)

        print("| clients | " + options.modes.map { "payql \($0) q/s" }.joined(separator: " | ")
              + (options.pgbench ? " | pgbench -S q/s | pgbench -S -M prepared q/s |" : " |"))
        print("|---|" + options.modes.map { _ in "---|" }.joined() + (options.pgbench ? "---|---|" : ""))
        var jsonLines: [String] = []
        for tasks in options.tasks {
            // Contenders take turns, round after round, and each cell is the median of its
            // rounds: on a shared machine, load comes and goes, and should hit all alike.
            var rates: [String: [Double]] = [:]
            let contenders = options.modes.map { "payql-\($0)" } + (options.pgbench ? ["pgbench-simple", "pgbench-prepared"] : [])
            for _ in 0..<options.rounds {
                for contender in contenders {
                    let rate: Double
                    if contender.hasPrefix("payql-") {
                        rate = try await measurePool(
                            connectionString: connectionString, mode: String(contender.dropFirst(6)), tasks: tasks,
                            seconds: options.duration, accounts: accounts, pipelinedConnections: options.pipelinedConnections
                        )
                    } else {
                        rate = try await runPgbench(pgbenchPath, connectionString: connectionString, clients: tasks, seconds: options.duration, mode: String(contender.dropFirst(8)))
                    }
                    rates[contender, default: []].append(rate)
                }
            }
            var row = "| \(tasks) |"
            for contender in contenders {
                let sorted = (rates[contender] ?? [0]).sorted()
                let median = sorted[sorted.count / 2]
                row += " \(Int(median)) |"
                jsonLines.append("{\"client\":\"\(contender)\",\"tasks\":\(tasks),\"qps\":\(Int(median)),\"rounds\":[\(sorted.map { String(Int($0)) }.joined(separator: ","))]}")
            }
            print(row)
        }
        print("")
        jsonLines.forEach { print($0) }
    }

    /// Queries per second through the pool with `tasks` concurrent tasks for `seconds`.
    static func measurePool(connectionString: String, mode: String, tasks: Int, seconds: Int, accounts: Int32, pipelinedConnections: Int) async throws -> Double {
        var configuration = PostgresPoolConfiguration(connection: try PostgresConfiguration(connectionString: connectionString))
        configuration.maxConnections = max(tasks, pipelinedConnections)
        configuration.pipelinedConnections = pipelinedConnections
        let pool = PostgresPool(configuration: configuration)
        defer { pool.shutdown() }
        let exclusive = mode.hasPrefix("exclusive")
        let onIOThread = mode.hasSuffix("-io")
        let deadline = ContinuousClock.now + .seconds(seconds)
        let warmup = ContinuousClock.now + .seconds(1)
        let counts = try await withThrowingTaskGroup(of: (Int, Duration).self) { group in
            for task in 0..<tasks {
                @Sendable func work() async throws -> (Int, Duration) {
                    var random = UInt64(task + 1) &* 0x9E37_79B9_7F4A_7C15
                    var count = 0
                    var started: ContinuousClock.Instant?
                    while true {
                        let now = ContinuousClock.now
                        if now >= deadline { break }
                        if started == nil, now >= warmup { started = now; count = 0 }
                        // xorshift64: no system call per query.
                        random ^= random << 13; random ^= random >> 7; random ^= random << 17
                        let aid = Int32(truncatingIfNeeded: random % UInt64(accounts)) + 1
                        let query: PostgresQuery = "SELECT abalance FROM pgbench_accounts WHERE aid = \(aid)"
                        let rows: PostgresRows
                        if exclusive {
                            rows = try await pool.withConnection { try await $0.query(query) }
                        } else {
                            rows = try await pool.query(query)
                        }
                        guard try rows.single(Int32.self) != nil else { throw PostgresError(.decodingFailed, message: "no row for aid \(aid)") }
                        count += 1
                    }
                    return (count, (started ?? deadline).duration(to: .now))
                }
                group.addTask {
                    if onIOThread {
                        return try await withTaskExecutorPreference(pool.taskExecutor) { try await work() }
                    }
                    return try await work()
                }
            }
            var results: [(Int, Duration)] = []
            for try await result in group { results.append(result) }
            return results
        }
        let total = counts.reduce(0) { $0 + $1.0 }
        let elapsed = counts.map { Double($0.1.components.seconds) + Double($0.1.components.attoseconds) / 1e18 }.max() ?? 1
        return Double(total) / max(elapsed, 0.001)
    }

    static func prepareTables(connectionString: String, scale: Int, pgbench: String) async throws {
        let connection = try await PostgresConnection.connect(configuration: try PostgresConfiguration(connectionString: connectionString))
        defer { connection.close() }
        let existing = try await connection.query("SELECT count(*)::int8 FROM pg_tables WHERE tablename = 'pgbench_accounts'")
        if let count = try existing.single(Int64.self), count > 0 {
            let rows = try await connection.query("SELECT count(*)::int8 FROM pgbench_accounts")
            if try rows.single(Int64.self) == Int64(scale) * 100_000 { return }
        }
        let output = try await runProcess(pgbench, ["-i", "-q", "-s", String(scale), connectionString])
        guard output.status == 0 else { throw PostgresError(.server, message: "pgbench -i failed: \(output.text)") }
    }

    static func runPgbench(_ path: String, connectionString: String, clients: Int, seconds: Int, mode: String) async throws -> Double {
        let output = try await runProcess(path, [
            "-n", "-S", "-M", mode, "-c", String(clients), "-j", String(min(clients, 2)), "-T", String(seconds), connectionString,
        ])
        guard output.status == 0, let range = output.text.range(of: "tps = ") else {
            throw PostgresError(.server, message: "pgbench failed: \(output.text)")
        }
        let number = output.text[range.upperBound...].prefix { $0.isNumber || $0 == "." }
        return Double(number) ?? 0
    }

    static func findPgbench() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/pgbench") {
            return "\(root)/\(version)/bin/pgbench"
        }
        throw PostgresError(.embeddedClusterFailed, message: "pgbench not found under /usr/lib/postgresql/*/bin")
    }

    /// Runs pgbench (signal mask reset, so its `-T` alarm works) and collects its output.
    static func runProcess(_ path: String, _ arguments: [String]) async throws -> (status: Int32, text: String) {
        let output = try await ProcessRunner(runAs: nil).run(path, arguments)
        return (output.status, output.text)
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var index = 0
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw PostgresError(.invalidInput, message: "\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--database-url": options.databaseURL = try value()
            case "--data-dir": options.dataDirectory = try value()
            case "--tasks": options.tasks = try value().split(separator: ",").compactMap { Int($0) }
            case "--duration": options.duration = Int(try value()) ?? options.duration
            case "--scale": options.scale = Int(try value()) ?? options.scale
            case "--modes": options.modes = try value().split(separator: ",").map(String.init)
            case "--pipelined-connections": options.pipelinedConnections = Int(try value()) ?? options.pipelinedConnections
            case "--no-pgbench": options.pgbench = false
            case "--rounds": options.rounds = max(1, Int(try value()) ?? options.rounds)
            default: throw PostgresError(.invalidInput, message: "unknown option \(arguments[index])")
            }
            index += 1
        }
        return options
    }
}
