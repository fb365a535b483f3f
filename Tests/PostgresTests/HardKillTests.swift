import ChildProcess
import Foundation
import Postgres
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The embedded cluster after hard kills (issue 14): each test really does it —
/// SIGKILL of `payql serve`, of the postmaster in the middle of an INSERT, of
/// `initdb` — or plants what a kill leaves (a `postmaster.pid` whose pid now
/// names another process), then checks that the next start copes. Each on a
/// cluster of its own, with bounded waits.
@Suite struct HardKillTests {
    @Test func aClusterLeftByAKilledServeIsTakenOverAndStoppedByTheNextInstance() async throws {
        let configuration = TestDatabase.configuration(name: "killed-serve")
        let directory = configuration.dataDirectory
        TestDatabase.stopAtExit(dataDirectory: directory)
        let serve = try TestProcesses.startPayQL([
            "serve", "--data-dir", directory, "--port", "0", "--threads", "1", "--sandbox", "false",
        ])
        let output = await TestProcesses.waitForOutput(serve, containing: #""msg":"listening""#)
        guard output != nil else {
            TestProcesses.kill9(serve)
            Issue.record("payql serve did not start listening")
            return
        }
        let postmaster = try #require(TestProcesses.postmasterPID(directory))
        TestProcesses.kill9(serve)
        // What the issue saw: the server outlives the process that started it.
        #expect(TestProcesses.isRunning(postmaster))

        let next = try await EmbeddedPostgres.start(configuration)
        #expect(!next.startedHere)
        #expect(TestProcesses.postmasterPID(directory) == postmaster)  // reused, not restarted
        let connection = try await PostgresConnection.connect(configuration: next.postgresConfiguration())
        #expect(try await connection.query("SELECT 1").single(Int32.self) == 1)
        connection.close()

        // No PayQL process uses it any more: this instance stops it, no orphan is left.
        try await next.stop()
        #expect(await TestProcesses.eventually { !TestProcesses.isRunning(postmaster) })
        #expect(!FileManager.default.fileExists(atPath: directory + "/postmaster.pid"))
    }

    @Test func theLastInstanceUsingAClusterStopsIt() async throws {
        let configuration = TestDatabase.configuration(name: "two-users")
        let first = try await TestDatabase.startCluster(name: "two-users")
        let second = try await EmbeddedPostgres.start(configuration)
        #expect(first.startedHere && !second.startedHere)
        let postmaster = try #require(TestProcesses.postmasterPID(configuration.dataDirectory))

        // The starter finishes first: the other instance still uses the server.
        try await first.stop()
        #expect(TestProcesses.isRunning(postmaster))
        let connection = try await PostgresConnection.connect(configuration: second.postgresConfiguration())
        #expect(try await connection.query("SELECT 1").single(Int32.self) == 1)
        connection.close()

        try await second.stop()
        #expect(await TestProcesses.eventually { !TestProcesses.isRunning(postmaster) })
    }

    @Test func startWaitsForThenEndsTheBackendsOfAKilledPostmaster() async throws {
        var configuration = TestDatabase.configuration(name: "orphans")
        configuration.orphanedProcessGrace = .seconds(1)
        let cluster = try await TestDatabase.startCluster(name: "orphans")
        let directory = cluster.dataDirectory
        let connection = try await PostgresConnection.connect(configuration: cluster.postgresConfiguration())
        defer { connection.close() }
        let backend = try #require(try await connection.query("SELECT pg_backend_pid()").single(Int32.self))
        _ = try await connection.query("CREATE TABLE big (n bigint)")
        _ = try await connection.query("CHECKPOINT")  // durable despite synchronous_commit=off
        // A large INSERT that would run for many minutes (10^10 rows joined, one in 1,000 kept, a
        // filter on both sides so nothing is pushed down) and writes little: the backend never
        // checks on its postmaster while it runs.
        let insert = Task {
            try await connection.query("""
                INSERT INTO big SELECT a + b FROM generate_series(1, 100000) a CROSS JOIN generate_series(1, 100000) b
                WHERE (a + b) % 1000 = 0
                """)
        }
        let watcher = try await PostgresConnection.connect(configuration: cluster.postgresConfiguration())
        let active = try await TestProcesses.eventually {
            try await watcher.query("SELECT count(*) FROM pg_stat_activity WHERE pid = \(backend) AND state = 'active'").single(Int64.self) == 1
        }
        watcher.close()
        try #require(active)

        let postmaster = try #require(TestProcesses.postmasterPID(directory))
        #expect(kill(postmaster, SIGKILL) == 0)
        #expect(await TestProcesses.eventually { !TestProcesses.isRunning(postmaster) })
        // The orphan keeps the old shared memory: a plain `pg_ctl start` now fails with
        // "pre-existing shared memory block is still in use".
        #expect(TestProcesses.isRunning(backend))

        let restarted = try await EmbeddedPostgres.start(configuration)
        #expect(restarted.startedHere)
        #expect(!TestProcesses.isRunning(backend))
        await #expect(throws: PostgresError.self) { try await insert.value }
        // Crash recovery ran: the INSERT never committed.
        let check = try await PostgresConnection.connect(configuration: restarted.postgresConfiguration())
        #expect(try await check.query("SELECT count(*) FROM big").single(Int64.self) == 0)
        check.close()
        try await cluster.stop()  // the first instance, still counted as a user: it leaves the server to `restarted`
        try await restarted.stop()
    }

    @Test func aStalePIDFileNamingALiveProcessThatIsNoPostmasterIsReplaced() async throws {
        let cluster = try await TestDatabase.startCluster(name: "stale-pid")
        let directory = cluster.dataDirectory
        let pidFile = directory + "/postmaster.pid"
        let real = try String(contentsOfFile: pidFile, encoding: .utf8)
        try await cluster.stop()

        // After a hard kill the pid was reused: postmaster.pid now names a `sleep` of the
        // cluster's own user (so that `kill(pid, 0)` succeeds for pg_ctl and the postmaster).
        let sleeper = geteuid() == 0
            ? try ChildProcess(executable: "/usr/bin/setpriv", arguments: ["--reuid", "postgres", "--regid", "postgres", "--clear-groups", "--", "/bin/sleep", "60"])
            : try ChildProcess(executable: "/bin/sleep", arguments: ["60"])
        defer { TestProcesses.kill9(sleeper) }
        var lines = real.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[0] = String(sleeper.pid)
        try lines.joined(separator: "\n").write(toFile: pidFile, atomically: false, encoding: .utf8)

        let restarted = try await EmbeddedPostgres.start(TestDatabase.configuration(name: "stale-pid"))
        #expect(restarted.startedHere)
        let postmaster = try #require(TestProcesses.postmasterPID(directory))
        #expect(postmaster != sleeper.pid)
        #expect(TestProcesses.isRunning(sleeper.pid))  // never signalled
        let connection = try await PostgresConnection.connect(configuration: restarted.postgresConfiguration())
        #expect(try await connection.query("SELECT 1").single(Int32.self) == 1)
        connection.close()
        try await restarted.stop()
    }

    @Test func anInitdbKilledHalfwayIsCleanedUpAndRunAgain() async throws {
        let configuration = TestDatabase.configuration(name: "killed-initdb")
        let directory = configuration.dataDirectory
        TestDatabase.stopAtExit(dataDirectory: directory)
        let migrate = try TestProcesses.startPayQL(["migrate", "--data-dir", directory, "--migrations", "/nonexistent"])
        // Kill payql, runuser, initdb and its bootstrap backend together (as a Ctrl-C of the
        // process group would) once initdb has written PG_VERSION, in the middle of its work.
        let parent = URL(fileURLWithPath: directory).deletingLastPathComponent().path
        var killed: [Int32] = []
        let caught = await TestProcesses.eventually(timeout: .seconds(60)) {
            let initdb = TestProcesses.processes(named: ["initdb"], mentioning: directory)
            let started = ((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []).contains { entry in
                entry.hasPrefix("killed-initdb") && FileManager.default.fileExists(atPath: parent + "/" + entry + "/PG_VERSION")
            }
            guard !initdb.isEmpty, started else { return false }
            migrate.terminate(signal: SIGKILL)
            killed = TestProcesses.processes(named: ["initdb", "postgres", "runuser"], mentioning: directory)
            for pid in killed { kill(pid, SIGKILL) }
            return true
        }
        _ = migrate.waitForExit()
        try #require(caught, "initdb was never seen running")
        #expect(await TestProcesses.eventually { !killed.contains(where: TestProcesses.isRunning) })

        let cluster = try await EmbeddedPostgres.start(configuration)
        #expect(cluster.startedHere)
        let connection = try await PostgresConnection.connect(configuration: cluster.postgresConfiguration())
        #expect(try await connection.query("SELECT current_database()::text").single(String.self) == "payql")
        connection.close()
        // Nothing of the interrupted attempt is left next to the data directory.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: parent).filter { $0.hasPrefix("killed-initdb.initdb-") }
        #expect(leftovers.isEmpty)
        try await cluster.stop()
    }
}
