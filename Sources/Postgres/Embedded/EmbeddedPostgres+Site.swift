import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension EmbeddedPostgres {
    /// The steps of `start` that run under the start lock (`<data>.lock`), so no
    /// other PayQL process initialises, starts or stops this cluster meanwhile.
    /// Each step first repairs what a hard kill may have left.
    struct Site {
        let configuration: EmbeddedPostgresConfiguration
        /// Absolute, not necessarily resolved.
        let dataDirectory: String
        let socketDirectory: String
        let binDirectory: String
        /// The PostgreSQL account's ids when PayQL runs as root.
        let owner: (uid: uid_t, gid: gid_t)?
        let runner: ProcessRunner
        let logger: PostgresLogger

        /// How many times `startOrReuse` tries before giving up.
        static let maximumAttempts = 3
        /// How long a running postmaster may take to accept connections (crash recovery included).
        static let readinessTimeout: Duration = .seconds(60)

        /// What `postmaster.pid` says, checked against the processes themselves.
        enum ExistingServer {
            /// No pid file, or its pid is gone (PostgreSQL replaces such a file itself).
            case stopped
            /// This data directory's postmaster is alive.
            case running(PostmasterPIDFile)
            /// The file names a live process that is not this cluster's postmaster (the pid was reused).
            case stale(PostmasterPIDFile)
        }

        // MARK: - initdb

        /// Runs `initdb` unless the data directory holds a cluster. It runs in
        /// `<data>.initdb-<pid>` and is renamed to the data directory only when
        /// complete, so an interrupted initdb never leaves a directory that looks
        /// like a cluster; such leftovers (and any process still working in them)
        /// are removed first.
        func initialiseIfNeeded() async throws {
            let files = FileManager.default
            let url = URL(fileURLWithPath: dataDirectory)
            let parent = url.deletingLastPathComponent().path
            let leftoverPrefix = url.lastPathComponent + ".initdb-"
            for entry in (try? files.contentsOfDirectory(atPath: parent)) ?? [] where entry.hasPrefix(leftoverPrefix) {
                try await removeLeftover(parent + "/" + entry)
            }
            guard !files.fileExists(atPath: dataDirectory + "/PG_VERSION") else { return }
            if let entries = try? files.contentsOfDirectory(atPath: dataDirectory), !entries.isEmpty {
                throw PostgresError(.embeddedClusterFailed, message: "\(dataDirectory) is not empty but holds no PostgreSQL cluster (no PG_VERSION); remove it or choose another data directory")
            }
            // The pid and a random part: a process of an earlier attempt still running must never
            // find its directory again, even if our pid is the one its payql had.
            let temporary = parent + "/" + leftoverPrefix + "\(getpid())-\(String(UInt32.random(in: .min ... .max), radix: 16))"
            try EmbeddedPostgres.createDirectory(temporary, owner: owner)
            logger.log(.info, "embedded postgres: initdb \(dataDirectory)")
            let output = try await runner.run(binDirectory + "/initdb", [
                "-D", temporary, "-U", configuration.user, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync",
            ])
            guard output.status == 0 else {
                try? files.removeItem(atPath: temporary)
                throw PostgresError(.embeddedClusterFailed, message: "initdb failed (status \(output.status)): \(output.text.trimmingTrailingNewlines)")
            }
            // rename(2) replaces an empty directory: the data directory appears whole, or not at all.
            guard rename(temporary, dataDirectory) == 0 else {
                let reason = String(cString: strerror(errno))
                try? files.removeItem(atPath: temporary)
                throw PostgresError(.embeddedClusterFailed, message: "cannot move the new cluster from \(temporary) to \(dataDirectory): \(reason) (is the data directory a mount point? use a directory inside it)")
            }
        }

        /// Removes what an interrupted initdb left in `path`, ending its processes
        /// first. A process may still be starting when we look (initdb forks
        /// `sh -c postgres ...`, which only then enters the directory, and it
        /// removes its own files when it sees initdb gone), so this looks again
        /// and retries a few times before giving up.
        func removeLeftover(_ path: String) async throws {
            logger.log(.warning, "embedded postgres: removing \(path), left by an initdb that was interrupted")
            let attempts = 5
            for attempt in 1...attempts {
                let stragglers = ServerProcesses.processes(using: path).filter {
                    ["initdb", "postgres", "runuser"].contains(ServerProcesses.executableName(of: $0) ?? "")
                }
                for pid in stragglers { kill(pid, SIGKILL) }
                _ = await ServerProcesses.waitForExit(stragglers, timeout: .seconds(5))
                do {
                    try FileManager.default.removeItem(atPath: path)
                    return
                } catch {
                    guard FileManager.default.fileExists(atPath: path) else { return }
                    guard attempt < attempts else {
                        throw PostgresError(.embeddedClusterFailed, message: "cannot remove \(path), left by an interrupted initdb: \(error)")
                    }
                    try await Task.sleep(for: .milliseconds(100 * attempt))
                }
            }
        }

        // MARK: - Start

        /// Uses the server running on the data directory once it accepts connections,
        /// or starts one; the port and socket directory to use, and whether it started it.
        func startOrReuse(alone: Bool) async throws -> (port: Int, socketDirectory: String, startedHere: Bool) {
            try EmbeddedPostgres.createDirectory(dataDirectory, owner: owner)
            guard let resolvedData = ServerProcesses.resolved(dataDirectory) else {
                throw PostgresError(.embeddedClusterFailed, message: "\(dataDirectory) vanished")
            }
            let port: Int
            switch configuration.listen {
            case .socketOnly: port = 40000 + Int(fnv1aValue(dataDirectory) % 10000)
            case .loopback(let fixed): port = try fixed ?? EmbeddedPostgres.freeLoopbackPort()
            }
            var failure = ""
            for _ in 1...Site.maximumAttempts {
                switch await existingServer(resolvedData: resolvedData) {
                case .running(let file):
                    let socket = file.socketDirectory ?? socketDirectory
                    let runningPort = file.port ?? port
                    guard try await waitUntilAccepting(file.pid, socketDirectory: socket, port: runningPort) else {
                        failure = "the server (pid \(file.pid)) exited while starting"
                        continue  // it went away while we waited: start it afresh
                    }
                    logger.log(.info, alone
                        ? "embedded postgres: taking over the server left running on \(dataDirectory) (pid \(file.pid), port \(runningPort)): no PayQL process uses it any more, so this one stops it at the end"
                        : "embedded postgres: using the server already running on \(dataDirectory) (pid \(file.pid), port \(runningPort)); the last PayQL process using it stops it")
                    return (runningPort, socket, false)
                case .stale(let file):
                    logger.log(.warning, "embedded postgres: \(dataDirectory)/postmaster.pid names pid \(file.pid), a live process that is not this cluster's server (the pid was reused after a hard kill); removing the stale file")
                    guard unlink(dataDirectory + "/postmaster.pid") == 0 || errno == ENOENT else {
                        throw PostgresError(.embeddedClusterFailed, message: "cannot remove the stale \(dataDirectory)/postmaster.pid: \(String(cString: strerror(errno)))")
                    }
                case .stopped:
                    break
                }
                try await clearOrphanedProcesses(resolvedData: resolvedData)
                try removeStaleSocketLockFiles(resolvedData: resolvedData)
                let output = try await pgctlStart(port: port)
                if output.status == 0 { return (port, socketDirectory, true) }
                let log = (try? String(contentsOfFile: dataDirectory + "/payql-postgres.log", encoding: .utf8))?.suffix(2000) ?? ""
                failure = "pg_ctl start failed (status \(output.status)): \(output.text.trimmingTrailingNewlines)\n\(log)"
                // pg_ctl may give up while the postmaster lives on: stop it, leave nothing running.
                if case .running = await existingServer(resolvedData: resolvedData) {
                    _ = try? await runner.run(binDirectory + "/pg_ctl", ["stop", "-w", "-t", "30", "-m", "immediate", "-D", dataDirectory])
                }
                // Worth another try only if processes of a killed postmaster were in the way.
                guard !ServerProcesses.serverProcesses(in: resolvedData).isEmpty else { break }
            }
            throw PostgresError(.embeddedClusterFailed, message: failure)
        }

        /// Reads `postmaster.pid` and checks its pid: this data directory's
        /// postmaster, a reused pid, or nothing. Without `/proc` (some
        /// containers), a server that answers on the file's socket counts as running.
        func existingServer(resolvedData: String) async -> ExistingServer {
            guard let file = PostmasterPIDFile(dataDirectory: dataDirectory), ServerProcesses.isAlive(file.pid) else { return .stopped }
            // A zombie postmaster is stale too: PostgreSQL's own check (kill(pid, 0)) would take it for a live one.
            if ServerProcesses.procfsAvailable {
                return ServerProcesses.isRunning(file.pid) && ServerProcesses.isServerProcess(file.pid, in: resolvedData) ? .running(file) : .stale(file)
            }
            // No port yet: a postmaster still starting; `waitUntilAccepting` sees whether it lives on.
            guard let port = file.port else { return .running(file) }
            let answer = await ServerPing.ping(socketDirectory: file.socketDirectory ?? socketDirectory, port: port, user: configuration.user)
            return answer == .noResponse ? .stale(file) : .running(file)
        }

        /// Waits until the postmaster `pid` accepts connections on its socket (a
        /// real start-up handshake, not the pid file); false if it exits first.
        /// Throws when it is alive but does not answer within `readinessTimeout`.
        func waitUntilAccepting(_ pid: Int32, socketDirectory: String, port: Int) async throws -> Bool {
            let clock = ContinuousClock()
            let deadline = clock.now + Site.readinessTimeout
            var pause = Duration.milliseconds(20)
            while true {
                if await ServerPing.ping(socketDirectory: socketDirectory, port: port, user: configuration.user) == .accepting { return true }
                guard ServerProcesses.isRunning(pid) else { return false }
                guard clock.now < deadline else {
                    throw PostgresError(.embeddedClusterFailed, message: "the PostgreSQL server running on \(dataDirectory) (pid \(pid)) has not accepted connections on \(socketDirectory) port \(port) for \(Site.readinessTimeout); stop it (pg_ctl stop -D \(dataDirectory)) and start again")
                }
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .milliseconds(500))
            }
        }

        /// Waits, up to `orphanedProcessGrace`, for server processes whose postmaster
        /// is gone to finish (a backend in the middle of a large INSERT keeps the old
        /// shared memory attached, and a new postmaster refuses to start while it
        /// lives), then ends them: SIGQUIT, as the postmaster itself does to its
        /// children after a crash, and SIGKILL for any that ignore it.
        func clearOrphanedProcesses(resolvedData: String) async throws {
            let orphans = ServerProcesses.serverProcesses(in: resolvedData)
            guard !orphans.isEmpty else { return }
            let list = orphans.map(String.init).joined(separator: ", ")
            logger.log(.warning, "embedded postgres: server processes of a postmaster that was killed still run in \(dataDirectory) (pids \(list)); waiting up to \(configuration.orphanedProcessGrace) for them to finish")
            if await ServerProcesses.waitForExit(orphans, timeout: configuration.orphanedProcessGrace) { return }
            for signal in [SIGQUIT, SIGKILL] {
                let remaining = orphans.filter(ServerProcesses.isRunning)
                logger.log(.warning, "embedded postgres: ending the orphaned server processes \(remaining.map(String.init).joined(separator: ", ")) (signal \(signal))")
                for pid in remaining { kill(pid, signal) }
                if await ServerProcesses.waitForExit(remaining, timeout: .seconds(5)) { return }
            }
            throw PostgresError(.embeddedClusterFailed, message: "server processes of a killed postmaster (pids \(list)) still run in \(dataDirectory) and do not exit; stop them and start again")
        }

        /// Removes the socket lock files (`.s.PGSQL.<port>.lock`) in the private
        /// socket directory whose pid is not a running server of this cluster.
        /// PostgreSQL removes those whose pid is gone, but takes a zombie for a
        /// live process: a postmaster killed where nobody reaps orphans (a
        /// container's init, or none) would block every start until reaped.
        func removeStaleSocketLockFiles(resolvedData: String) throws {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: socketDirectory)) ?? []
            where entry.hasPrefix(".s.PGSQL.") && entry.hasSuffix(".lock") {
                let path = socketDirectory + "/" + entry
                let first = (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").first
                if let pid = first.flatMap({ Int32($0.trimmingCharacters(in: .whitespaces)) }),
                   ServerProcesses.isRunning(pid), !ServerProcesses.procfsAvailable || ServerProcesses.isServerProcess(pid, in: resolvedData) {
                    continue
                }
                logger.log(.warning, "embedded postgres: removing the stale socket lock file \(path)")
                guard unlink(path) == 0 || errno == ENOENT else {
                    throw PostgresError(.embeddedClusterFailed, message: "cannot remove the stale \(path): \(String(cString: strerror(errno)))")
                }
            }
        }

        /// `pg_ctl start -w` with the private socket, the port and the configured settings.
        func pgctlStart(port: Int) async throws -> ProcessRunner.Output {
            var options = ["-c unix_socket_directories=\(socketDirectory)", "-p \(port)", "-c unix_socket_permissions=0700"]
            switch configuration.listen {
            case .socketOnly: options.append("-c listen_addresses=''")
            case .loopback: options.append("-c listen_addresses=127.0.0.1")
            }
            for (name, value) in configuration.serverSettings.sorted(by: { $0.key < $1.key }) {
                options.append("-c \(name)=\(value)")
            }
            logger.log(.info, "embedded postgres: starting on \(socketDirectory) port \(port)")
            return try await runner.run(binDirectory + "/pg_ctl", [
                "start", "-w", "-t", "60", "-D", dataDirectory, "-l", dataDirectory + "/payql-postgres.log",
                "-o", options.joined(separator: " "),
            ])
        }
    }
}
