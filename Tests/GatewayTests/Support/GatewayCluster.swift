import ChildProcess
import Foundation
import HTTPClient
import PaymentsCore
import Postgres
import Providers
import Postgres
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL cluster of one GatewayTests process: started on first use in
/// `/tmp/payql-gwtests-<pid>`, stopped at exit. Every harness gets a database of its own.
enum GatewayCluster {
    static let directory = NSTemporaryDirectory() + "payql-gwtests-\(getpid())"

    private static let shared = Task<EmbeddedPostgres, any Error> {
        var configuration = EmbeddedPostgresConfiguration()
        configuration.dataDirectory = directory + "/pg"
        configuration.serverSettings = ["fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "300"]
        let cluster = try await EmbeddedPostgres.start(configuration)
        let data = cluster.dataDirectory
        stopAtExit.withLock { $0 = data }
        atexit { GatewayCluster.stopNow() }
        return cluster
    }

    private static let stopAtExit = Mutex<String?>(nil)
    private static let databases = Atomic<Int>(0)

    /// A fresh database on the shared cluster.
    static func freshDatabase() async throws -> (cluster: EmbeddedPostgres, url: String) {
        let cluster = try await shared.value
        let name = "gw\(getpid())_\(databases.add(1, ordering: .relaxed).newValue)"
        try await cluster.createDatabase(name)
        return (cluster, cluster.connectionString(database: name))
    }

    /// `pg_ctl stop -m immediate` (synchronously: the process is exiting).
    static func stopNow() {
        guard let data = stopAtExit.withLock({ $0 }) else { return }
        let root = "/usr/lib/postgresql"
        guard let version = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).max() else { return }
        let command = ["\(root)/\(version)/bin/pg_ctl", "stop", "-m", "immediate", "-w", "-D", data]
        let wrapped = geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + command : command
        _ = try? ChildProcess.run("/bin/sh", ["-c", "cd / && exec \"$0\" \"$@\""] + wrapped, mergeErrors: true)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
