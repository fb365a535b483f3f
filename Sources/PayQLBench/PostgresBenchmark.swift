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
/// the tasks on the pool's I/O threads (`pool.withIOExecutor`); a `:N` suffix
/// (`pipelined-io:1`) sets the pool's pipelined connections for that mode.
/// Each contender runs S seconds (the first second not counted) per round, in
/// turns, R rounds; the table shows each cell's median, the JSON lines every
/// round. A second table gives the CPU each statement cost, client (this
/// process, or pgbench) + server (the backends, from the postmaster's
/// reaped-children counters; local embedded cluster only).
enum PostgresBenchmark {
    struct Options {
        var databaseURL: String?
        var dataDirectory = NSTemporaryDirectory() + "payql-bench-postgres"
        var tasks = [1, 8, 32]
        var duration = 5
        var scale = 10
        var modes = ["pipelined", "pipelined-io", "exclusive"]
        /// nil: the pool's default.
        var pipelinedConnections: Int?
        var pgbench = true
        var rounds = 3
    }

    /// One contender's run: its rate, and the CPU it and the server spent per statement.
    struct Sample {
        var rate: Double
        /// Client CPU (user + system) per statement, in microseconds.
        var clientMicros: Double
        /// Server CPU per statement (the backends' user + system time, read from the
        /// postmaster's reaped-children counters); nil when the server is not local.
        var serverMicros: Double?
    }

    static func run(_ arguments: [String]) async throws {
        let options = try parse(arguments)
        var cluster: EmbeddedPostgres?
        let connectionString: String
        var dataDirectory: String?
        if let url = options.databaseURL {
            connectionString = url
        } else {
            dataDirectory = options.dataDirectory
            var configuration = EmbeddedPostgresConfiguration()
            configuration.dataDirectory = options.dataDirectory
            configuration.database = "bench"
            configuration.serverSettings = ["max_connections": "200", "shared_buffers": "128MB"]
            let started = try await EmbeddedPostgres.start(configuration)
            cluster = started
            connectionString = started.connectionString()
        }
        do {
            try await compare(connectionString: connectionString, dataDirectory: dataDirectory, options: options)
        } catch {
            try? await cluster?.stop()
            throw error
        }
        try await cluster?.stop()
    }

    /// Prints the table: each client count through the pool (each mode), then pgbench.
    static func compare(connectionString: String, dataDirectory: String?, options: Options) async throws {
        let pgbenchPath = try findPgbench()
        let serverCPU = ServerCPU(dataDirectory: dataDirectory)
        try await prepareTables(connectionString: connectionString, scale: options.scale, pgbench: pgbenchPath)
        let accounts = Int32(options.scale * 100_000)

        print("| clients | " + options.modes.map { "payql \($0) q/s" }.joined(separator: " | ")
              + (options.pgbench ? " | pgbench -S q/s | pgbench -S -M prepared q/s |" : " |"))
        print("|---|" + options.modes.map { _ in "---|" }.joined() + (options.pgbench ? "---|---|" : ""))
        var jsonLines: [String] = []
        var cpuRows: [String] = []
        for tasks in options.tasks {
            // Contenders take turns, round after round, and each cell is the median of its
            // rounds: on a shared machine, load comes and goes, and should hit all alike.
            var samples: [String: [Sample]] = [:]
            let contenders = options.modes.map { "payql-\($0)" } + (options.pgbench ? ["pgbench-simple", "pgbench-prepared"] : [])
            for _ in 0..<options.rounds {
                for contender in contenders {
                    let sample: Sample
                    if contender.hasPrefix("payql-") {
                        sample = try await measurePool(
                            connectionString: connectionString, mode: String(contender.dropFirst(6)), tasks: tasks,
                            seconds: options.duration, accounts: accounts, pipelinedConnections: options.pipelinedConnections,
                            serverCPU: serverCPU
                        )
                    } else {
                        sample = try await runPgbench(
                            pgbenchPath, connectionString: connectionString, clients: tasks, seconds: options.duration,
                            mode: String(contender.dropFirst(8)), serverCPU: serverCPU
                        )
                    }
                    samples[contender, default: []].append(sample)
                }
            }
            var row = "| \(tasks) |"
            var cpuRow = "| \(tasks) |"
            for contender in contenders {
                let rounds = samples[contender] ?? []
                let rates = rounds.map(\.rate).sorted()
                let median = rates.isEmpty ? 0 : rates[rates.count / 2]
                let client = medianOf(rounds.map(\.clientMicros))
                let server = medianOf(rounds.compactMap(\.serverMicros))
                row += " \(Int(median)) |"
                cpuRow += " \(format(client)) + \(server.map(format) ?? "?") |"
                jsonLines.append(
                    "{\"client\":\"\(contender)\",\"tasks\":\(tasks),\"qps\":\(Int(median)),\"rounds\":[\(rounds.map { String(Int($0.rate)) }.joined(separator: ","))],"
                        + "\"client_us_per_query\":\(format(client)),\"server_us_per_query\":\(server.map(format) ?? "null")}"
                )
            }
            print(row)
            cpuRows.append(cpuRow)
        }
        print("")
        print("CPU per statement, microseconds, client + server (medians of the rounds):")
        print("")
        print("| clients | " + options.modes.map { "payql \($0)" }.joined(separator: " | ")
              + (options.pgbench ? " | pgbench -S | pgbench -S -M prepared |" : " |"))
        print("|---|" + options.modes.map { _ in "---|" }.joined() + (options.pgbench ? "---|---|" : ""))
        cpuRows.forEach { print($0) }
        print("")
        jsonLines.forEach { print($0) }
    }

    static func medianOf(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    static func format(_ value: Double?) -> String {
        guard let value else { return "?" }
        return String(format: "%.1f", value)
    }

    /// Queries per second through the pool with `tasks` concurrent tasks for `seconds`.
    /// A mode may name its own number of pipelined connections: `pipelined-io:1`.
    static func measurePool(
        connectionString: String, mode modeAndConnections: String, tasks: Int, seconds: Int, accounts: Int32, pipelinedConnections: Int?,
        serverCPU: ServerCPU
    ) async throws -> Sample {
        let parts = modeAndConnections.split(separator: ":")
        let mode = String(parts.first ?? "")
        var configuration = PostgresPoolConfiguration(connection: try PostgresConfiguration(connectionString: connectionString))
        if let connections = parts.count > 1 ? Int(parts[1]) : pipelinedConnections { configuration.pipelinedConnections = connections }
        configuration.maxConnections = max(tasks, configuration.pipelinedConnections)
        let pool = PostgresPool(configuration: configuration)
        let serverBefore = serverCPU.reapedSeconds()
        let clientBefore = processCPUSeconds(RUSAGE_SELF.rawValue)
        let exclusive = mode.hasPrefix("exclusive")
        let onIOThread = mode.hasSuffix("-io")
        let deadline = ContinuousClock.now + .seconds(seconds)
        let warmup = ContinuousClock.now + .seconds(1)
        let counts = try await withThrowingTaskGroup(of: (Int, Duration, Int).self) { group in
            for task in 0..<tasks {
                @Sendable func work() async throws -> (Int, Duration, Int) {
                    var random = UInt64(task + 1) &* 0x9E37_79B9_7F4A_7C15
                    var count = 0
                    var total = 0
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
                        total += 1
                    }
                    return (count, (started ?? deadline).duration(to: .now), total)
                }
                group.addTask {
                    if onIOThread {
                        return try await pool.withIOExecutor { try await work() }
                    }
                    return try await work()
                }
            }
            var results: [(Int, Duration, Int)] = []
            for try await result in group { results.append(result) }
            return results
        }
        let clientSeconds = processCPUSeconds(RUSAGE_SELF.rawValue) - clientBefore
        pool.shutdown()
        let statements = Double(max(1, counts.reduce(0) { $0 + $1.2 }))
        let serverSeconds = await serverCPU.settledSeconds(since: serverBefore)
        let measured = counts.reduce(0) { $0 + $1.0 }
        let elapsed = counts.map { Double($0.1.components.seconds) + Double($0.1.components.attoseconds) / 1e18 }.max() ?? 1
        return Sample(
            rate: Double(measured) / max(elapsed, 0.001),
            clientMicros: clientSeconds / statements * 1e6,
            serverMicros: serverSeconds.map { $0 / statements * 1e6 }
        )
    }

    /// User + system CPU seconds of this process (`RUSAGE_SELF`) or of its waited-for children.
    static func processCPUSeconds(_ who: Int32) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// The CPU time of a local server's exited backends: the postmaster's reaped-children
    /// counters (`cutime` + `cstime` in `/proc/PID/stat`), which grow when a backend exits.
    struct ServerCPU: Sendable {
        let postmasterPID: Int?

        init(dataDirectory: String?) {
            let firstLine = dataDirectory.flatMap { try? String(contentsOfFile: $0 + "/postmaster.pid", encoding: .utf8) }?
                .split(separator: "\n").first
            postmasterPID = firstLine.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }

        func reapedSeconds() -> Double? {
            guard let postmasterPID, let stat = try? String(contentsOfFile: "/proc/\(postmasterPID)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // Fields after the command name start at field 3; cutime and cstime are fields 16 and 17.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 14, let cutime = Double(fields[13]), let cstime = Double(fields[14]) else { return nil }
            return (cutime + cstime) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }

        /// Seconds spent since `before`, once the backends of the finished run have exited.
        func settledSeconds(since before: Double?) async -> Double? {
            guard let before else { return nil }
            // Backends exit when their connections close; wait until the counter stops moving.
            var last = reapedSeconds()
            for _ in 0..<20 {
                try? await Task.sleep(for: .milliseconds(100))
                let now = reapedSeconds()
                if now == last, let now, now > before { return now - before }
                last = now
            }
            return last.map { $0 - before }
        }
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

    static func runPgbench(_ path: String, connectionString: String, clients: Int, seconds: Int, mode: String, serverCPU: ServerCPU) async throws -> Sample {
        let serverBefore = serverCPU.reapedSeconds()
        let clientBefore = processCPUSeconds(RUSAGE_CHILDREN.rawValue)
        let output = try await runProcess(path, [
            "-n", "-S", "-M", mode, "-c", String(clients), "-j", String(min(clients, 2)), "-T", String(seconds), connectionString,
        ])
        guard output.status == 0, let range = output.text.range(of: "tps = ") else {
            throw PostgresError(.server, message: "pgbench failed: \(output.text)")
        }
        let number = output.text[range.upperBound...].prefix { $0.isNumber || $0 == "." }
        let clientSeconds = processCPUSeconds(RUSAGE_CHILDREN.rawValue) - clientBefore
        let serverSeconds = await serverCPU.settledSeconds(since: serverBefore)
        var statements = 1.0
        if let processed = output.text.range(of: "actually processed: ") {
            statements = max(1, Double(output.text[processed.upperBound...].prefix { $0.isNumber }) ?? 1)
        }
        return Sample(
            rate: Double(number) ?? 0,
            clientMicros: clientSeconds / statements * 1e6,
            serverMicros: serverSeconds.map { $0 / statements * 1e6 }
        )
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
            case "--pipelined-connections": options.pipelinedConnections = Int(try value())
            case "--no-pgbench": options.pgbench = false
            case "--rounds": options.rounds = max(1, Int(try value()) ?? options.rounds)
            default: throw PostgresError(.invalidInput, message: "unknown option \(arguments[index])")
            }
            index += 1
        }
        return options
    }
}
