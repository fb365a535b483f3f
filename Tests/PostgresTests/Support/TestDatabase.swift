import ChildProcess
import Foundation
import Postgres
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL cluster shared by the whole PostgresTests run: started on
/// first use through `EmbeddedPostgres` (the mechanism `payql serve` uses),
/// in a directory named after this process, and stopped at process exit.
/// Each test gets its own schema, so tests run in parallel.
enum TestDatabase {
    /// Clusters started by this process (data and socket directories), stopped by the `atexit` handler.
    private static let startedClusters = Mutex<[(data: String, socket: String)]>([])

    private static let shared = Task<EmbeddedPostgres, any Error> {
        cleanStaleClusters()
        return try await startCluster(name: "main")
    }

    /// The shared cluster.
    static func cluster() async throws -> EmbeddedPostgres { try await shared.value }

    /// Starts a cluster of its own (for tests that restart the server), under this process's directory.
    static func startCluster(name: String) async throws -> EmbeddedPostgres {
        let cluster = try await EmbeddedPostgres.start(configuration(name: name))
        stopAtExit(dataDirectory: cluster.dataDirectory, socketDirectory: cluster.socketDirectory)
        return cluster
    }

    /// The configuration of the cluster `name` under this process's directory (not started).
    static func configuration(name: String) -> EmbeddedPostgresConfiguration {
        var configuration = EmbeddedPostgresConfiguration()
        configuration.dataDirectory = processDirectory + "/" + name
        configuration.serverSettings = ["fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "200"]
        return configuration
    }

    /// Makes sure a cluster in `dataDirectory` (started by this test process or by a child of it) is stopped at exit.
    static func stopAtExit(dataDirectory: String, socketDirectory: String = "") {
        startedClusters.withLock { clusters in
            if clusters.isEmpty { atexit { TestDatabase.stopAllClusters() } }
            if !clusters.contains(where: { $0.data == dataDirectory }) { clusters.append((dataDirectory, socketDirectory)) }
        }
    }

    /// `/tmp/payql-pgtests-<pid>`: unique per run, recognisable for clean-up.
    static let processDirectory = NSTemporaryDirectory() + "payql-pgtests-\(getpid())"

    /// A fresh schema on the shared cluster and a configuration whose `search_path` is that schema.
    static func freshSchema(_ label: String = "t") async throws -> (configuration: PostgresConfiguration, schema: String) {
        let cluster = try await cluster()
        let schema = "\(label)_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))"
        let connection = try await PostgresConnection.connect(configuration: cluster.postgresConfiguration())
        defer { connection.close() }
        _ = try await connection.query("CREATE SCHEMA \(identifier: schema)")
        var configuration = try cluster.postgresConfiguration()
        configuration.runtimeParameters["search_path"] = schema
        configuration.applicationName = schema
        return (configuration, schema)
    }

    /// A pool on a fresh schema.
    static func pool(maxConnections: Int = 4, acquireTimeout: Duration = .seconds(10), label: String = "t") async throws -> PostgresPool {
        let (configuration, _) = try await freshSchema(label)
        var poolConfiguration = PostgresPoolConfiguration(connection: configuration)
        poolConfiguration.maxConnections = maxConnections
        poolConfiguration.acquireTimeout = acquireTimeout
        return PostgresPool(configuration: poolConfiguration)
    }

    /// Stops every cluster this process started (`pg_ctl stop -m immediate`, synchronously: we are exiting).
    static func stopAllClusters() {
        let directories = startedClusters.withLock { $0 }
        guard let bin = try? binDirectory() else { return }
        for directory in directories {
            stopCluster(directory: directory.data, bin: bin)
            if !directory.socket.isEmpty { _ = rmdir(directory.socket) }
        }
        try? FileManager.default.removeItem(atPath: processDirectory)
    }

    /// Stops and removes clusters left by earlier runs whose process is gone (e.g. a crash).
    static func cleanStaleClusters() {
        let temporary = NSTemporaryDirectory()
        guard let bin = try? binDirectory(),
              let entries = try? FileManager.default.contentsOfDirectory(atPath: temporary) else { return }
        for entry in entries where entry.hasPrefix("payql-pgtests-") {
            guard let pid = Int32(entry.dropFirst("payql-pgtests-".count)), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let directory = temporary + entry
            for cluster in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                stopCluster(directory: directory + "/" + cluster, bin: bin)
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    private static func stopCluster(directory: String, bin: String) {
        // `cd /` first: the postgres user may not be able to enter our working directory.
        let stop = ["stop", "-m", "immediate", "-w", "-D", directory]
        let command = geteuid() == 0
            ? ["/usr/sbin/runuser", "-u", "postgres", "--", bin + "/pg_ctl"] + stop
            : [bin + "/pg_ctl"] + stop
        _ = try? ChildProcess.run("/bin/sh", ["-c", "cd / && exec \"$0\" \"$@\""] + command, mergeErrors: true)
    }

    private static func binDirectory() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = (try FileManager.default.contentsOfDirectory(atPath: root)).compactMap(Int.init).sorted()
        guard let newest = versions.last else { throw PostgresError(.embeddedClusterFailed, message: "no PostgreSQL") }
        return "\(root)/\(newest)/bin"
    }
}
