import Foundation
import Support
#if canImport(Glibc)
import Glibc
#endif

/// Where and how the embedded cluster runs. Defaults suit `payql serve` on a laptop.
public struct EmbeddedPostgresConfiguration: Sendable {
    /// How clients reach the cluster.
    public enum Listen: Sendable, Equatable {
        /// A unix socket in a private directory only (no TCP at all). The default.
        case socketOnly
        /// TCP on 127.0.0.1 at `port` (nil: a free port), plus the private socket.
        case loopback(port: Int?)
    }

    /// The cluster's data directory (relative paths are resolved against the working directory).
    public var dataDirectory: String = ".payql/postgres"
    /// Where `initdb`/`pg_ctl` live; nil finds the newest `/usr/lib/postgresql/*/bin`.
    public var binDirectory: String?
    /// Socket only, or loopback TCP.
    public var listen: Listen = .socketOnly
    /// The database PayQL uses (created if missing).
    public var database: String = "payql"
    /// The superuser created by `initdb` (trust authentication on the private socket).
    public var user: String = "payql"
    /// The account that runs PostgreSQL when PayQL runs as root.
    public var systemUser: String = "postgres"
    /// Extra server settings passed at start (e.g. `fsync: off` for tests). Values: letters, digits, `._-/:`.
    public var serverSettings: [String: String] = [:]
    /// How long `start` waits for server processes left behind by a killed
    /// postmaster (a backend finishing a large INSERT keeps the shared memory,
    /// and no new server can start until it exits) before ending them with
    /// SIGQUIT, as PostgreSQL itself does to its children after a crash.
    public var orphanedProcessGrace: Duration = .seconds(10)

    /// The defaults.
    public init() {}
}

/// A private PostgreSQL cluster run from Debian's server binaries: `initdb` on
/// first use, `pg_ctl start` on a private socket directory, `pg_ctl stop` at
/// the end. Used by `payql serve`/`migrate` when no database URL is given,
/// and by the test suites.
///
/// Several PayQL processes (and instances) may use one data directory; the
/// last one to `stop()` stops the server. Who uses it is kept in flock locks
/// next to the data directory (`<data>.lock` while starting or stopping,
/// `<data>.users` for as long as an instance lives), which the kernel
/// releases when a process dies: a server left running by a killed PayQL
/// process has no user, so the next instance takes it over and stops it.
/// `start` also survives the other leftovers of hard kills: a `postmaster.pid`
/// naming a live process that is not this cluster's server, backends of a
/// killed postmaster still holding its shared memory, and an `initdb` that was
/// interrupted (it runs in `<data>.initdb-<pid>`, renamed into place only when
/// complete).
///
/// As root, the tools run as `systemUser` (`runuser -u postgres`); the data
/// directory must then be reachable by that user, else a directory under
/// `/var/tmp` is used instead and a warning is logged.
public final class EmbeddedPostgres: Sendable {
    /// The configuration it was started with.
    public let configuration: EmbeddedPostgresConfiguration
    /// The data directory actually used (absolute; may be the `/var/tmp` fall-back).
    public let dataDirectory: String
    /// The private directory holding the server's unix socket.
    public let socketDirectory: String
    /// The port (the TCP port with `.loopback`, else only part of the socket's name).
    public let port: Int
    /// Whether this instance started the server process (false when it found one running:
    /// shared with another PayQL process, or taken over from one that is gone).
    public let startedHere: Bool
    private let binDirectory: String
    private let runner: ProcessRunner
    private let logger: PostgresLogger
    /// The shared lock on `<data>.users` that says this instance uses the cluster; nil once stopped.
    private let users: Locked<ClusterLockFile?>

    private init(
        configuration: EmbeddedPostgresConfiguration, dataDirectory: String, socketDirectory: String, port: Int,
        startedHere: Bool, binDirectory: String, runner: ProcessRunner, logger: PostgresLogger, users: ClusterLockFile
    ) {
        self.configuration = configuration
        self.dataDirectory = dataDirectory
        self.socketDirectory = socketDirectory
        self.port = port
        self.startedHere = startedHere
        self.binDirectory = binDirectory
        self.runner = runner
        self.logger = logger
        self.users = Locked(users)
    }

    /// A libpq connection string for `database` (or the configured database).
    public func connectionString(database: String? = nil) -> String {
        "host=\(socketDirectory) port=\(port) user=\(configuration.user) dbname=\(database ?? configuration.database)"
    }

    /// A pool-ready configuration for `database` (or the configured database).
    public func postgresConfiguration(database: String? = nil) throws -> PostgresConfiguration {
        try PostgresConfiguration(connectionString: connectionString(database: database))
    }

    /// Initialises the cluster if needed, starts it (or uses the one already running
    /// on this data directory), and creates the database if missing.
    /// Throws `.embeddedClusterFailed` with the tools' output when anything fails;
    /// a server it started is then stopped again.
    public static func start(_ configuration: EmbeddedPostgresConfiguration = .init(), logger: PostgresLogger = .disabled) async throws -> EmbeddedPostgres {
        for (name, value) in configuration.serverSettings {
            guard isSafeSetting(name), isSafeSetting(value) else {
                throw PostgresError(.invalidInput, message: "server setting '\(name)' has characters outside letters, digits and ._-/:")
            }
        }
        let binDirectory = try configuration.binDirectory ?? findBinDirectory()
        for tool in ["initdb", "pg_ctl"] where !FileManager.default.isExecutableFile(atPath: binDirectory + "/" + tool) {
            throw PostgresError(.embeddedClusterFailed, message: "PostgreSQL server binary \(tool) not found in \(binDirectory): install Debian's 'postgresql' package (make deps) or give a database URL")
        }
        let runAs: String? = geteuid() == 0 ? configuration.systemUser : nil
        var owner: (uid: uid_t, gid: gid_t)?
        if let runAs {
            guard let entry = getpwnam(runAs) else {
                throw PostgresError(.embeddedClusterFailed, message: "PostgreSQL refuses to run as root and the user '\(runAs)' does not exist; create it or run PayQL as another user")
            }
            owner = (entry.pointee.pw_uid, entry.pointee.pw_gid)
        }
        var dataDirectory = absolutePath(configuration.dataDirectory)
        if let owner, !isReachable(dataDirectory, uid: owner.uid, gid: owner.gid) {
            let fallback = "/var/tmp/payql-postgres-\(fnv1a(dataDirectory))"
            logger.log(.warning, "embedded postgres: \(dataDirectory) is not reachable by user '\(runAs ?? "")' (a parent directory is not traversable); using \(fallback) instead")
            dataDirectory = fallback
        }
        let parent = URL(fileURLWithPath: dataDirectory).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw PostgresError(.embeddedClusterFailed, message: "cannot create \(parent): \(error)")
        }
        let socketDirectory = "/tmp/payql-pg-\(fnv1a(dataDirectory))"
        try createDirectory(socketDirectory, owner: owner)

        // One PayQL process at a time initialises, starts or stops this cluster.
        let startLock = try ClusterLockFile(path: dataDirectory + ".lock")
        defer { startLock.close() }
        try await startLock.lock(exclusive: true, timeout: .seconds(180), holder: "another PayQL process starting or stopping the cluster")
        // Every instance using the cluster holds `users` shared: if exclusive is granted, nobody
        // does, and a server running now was left by PayQL processes that are gone.
        let users = try ClusterLockFile(path: dataDirectory + ".users")
        let alone = users.tryLock(exclusive: true)
        guard users.tryLock(exclusive: false) else {
            throw PostgresError(.embeddedClusterFailed, message: "cannot take the shared lock \(users.path)")
        }

        let runner = ProcessRunner(runAs: runAs)
        let site = Site(
            configuration: configuration, dataDirectory: dataDirectory, socketDirectory: socketDirectory,
            binDirectory: binDirectory, owner: owner, runner: runner, logger: logger)
        let server: (port: Int, socketDirectory: String, startedHere: Bool)
        do {
            try await site.initialiseIfNeeded()
            server = try await site.startOrReuse(alone: alone)
        } catch {
            users.close()
            throw error
        }
        startLock.close()

        let cluster = EmbeddedPostgres(
            configuration: configuration, dataDirectory: dataDirectory, socketDirectory: server.socketDirectory, port: server.port,
            startedHere: server.startedHere, binDirectory: binDirectory, runner: runner, logger: logger, users: users
        )
        do {
            try await cluster.createDatabase(configuration.database)
        } catch {
            // Nothing is left running that nobody will stop (unless another PayQL process uses it).
            try? await cluster.stop()
            throw error
        }
        return cluster
    }

    /// Creates `name` if it does not exist yet.
    public func createDatabase(_ name: String) async throws {
        let connection = try await PostgresConnection.connect(configuration: postgresConfiguration(database: "postgres"))
        defer { connection.close() }
        let exists = try await connection.query("SELECT 1 FROM pg_database WHERE datname = \(name)")
        if exists.isEmpty {
            do {
                _ = try await connection.query("CREATE DATABASE \(identifier: name)")
            } catch let error as PostgresError where error.sqlState == "42P04" {
                // Created concurrently by another process: fine.
            }
        }
    }

    /// Stops the server with `pg_ctl stop -m fast` unless another PayQL process
    /// or instance still uses it (or always, with `force`). Connections still
    /// open are terminated. Later calls do nothing (unless forced).
    public func stop(force: Bool = false) async throws {
        let users = self.users.withLock { users in
            defer { users = nil }
            return users
        }
        defer { users?.close() }
        guard users != nil || force else { return }
        let startLock = try ClusterLockFile(path: dataDirectory + ".lock")
        defer { startLock.close() }
        try await startLock.lock(exclusive: true, timeout: .seconds(180), holder: "another PayQL process starting or stopping the cluster")
        // Under the start lock nobody else converts a lock on `users`: refused means another user.
        guard users?.tryLock(exclusive: true) == true || force else {
            logger.log(.info, "embedded postgres: leaving \(dataDirectory) running: another PayQL process still uses it")
            return
        }
        logger.log(.info, "embedded postgres: stopping \(dataDirectory)")
        let output = try await runner.run(binDirectory + "/pg_ctl", ["stop", "-w", "-t", "60", "-m", "fast", "-D", dataDirectory])
        guard output.status == 0 else {
            throw PostgresError(.embeddedClusterFailed, message: "pg_ctl stop failed (status \(output.status)): \(output.text.trimmingTrailingNewlines)")
        }
        // The private socket directory is empty once the server is down.
        _ = rmdir(socketDirectory)
    }

    /// Restarts the server (`pg_ctl restart -m fast`): every connection is cut.
    public func restart() async throws {
        let output = try await runner.run(binDirectory + "/pg_ctl", ["restart", "-w", "-t", "60", "-m", "fast", "-D", dataDirectory])
        guard output.status == 0 else {
            throw PostgresError(.embeddedClusterFailed, message: "pg_ctl restart failed (status \(output.status)): \(output.text.trimmingTrailingNewlines)")
        }
    }

    // MARK: - Helpers

    /// The newest `/usr/lib/postgresql/<version>/bin` that has `initdb` and `pg_ctl`.
    static func findBinDirectory() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap { name in Int(name).map { ($0, "\(root)/\(name)/bin") } }
            .filter { FileManager.default.isExecutableFile(atPath: $0.1 + "/initdb") && FileManager.default.isExecutableFile(atPath: $0.1 + "/pg_ctl") }
            .sorted { $0.0 > $1.0 }
        guard let newest = versions.first else {
            throw PostgresError(.embeddedClusterFailed, message: "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin: install Debian's 'postgresql' package (make deps) or give a database URL")
        }
        return newest.1
    }

    private static func isSafeSetting(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-/:".unicodeScalars.contains($0) }
    }

    private static func absolutePath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: absolute).standardizedFileURL.path
    }

    /// Whether `uid`/`gid` can traverse every existing ancestor of `path`.
    private static func isReachable(_ path: String, uid: uid_t, gid: gid_t) -> Bool {
        var current = URL(fileURLWithPath: path).deletingLastPathComponent().path
        while true {
            var info = stat()
            if stat(current, &info) == 0 {
                let mode = info.st_mode
                let traversable = info.st_uid == uid ? mode & S_IXUSR != 0 : info.st_gid == gid ? mode & S_IXGRP != 0 : mode & S_IXOTH != 0
                if !traversable { return false }
            }
            if current == "/" || current.isEmpty { return true }
            current = URL(fileURLWithPath: current).deletingLastPathComponent().path
        }
    }

    /// `mkdir -p`, then (as root) hands the leaf to the PostgreSQL user, mode 0700.
    static func createDirectory(_ path: String, owner: (uid: uid_t, gid: gid_t)?) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw PostgresError(.embeddedClusterFailed, message: "cannot create \(path): \(error)")
        }
        if let owner {
            var info = stat()
            if stat(path, &info) == 0, info.st_uid != owner.uid {
                let empty = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).isEmpty
                guard empty else {
                    throw PostgresError(.embeddedClusterFailed, message: "\(path) is not owned by the PostgreSQL user and is not empty; remove it or chown it")
                }
                guard chown(path, owner.uid, owner.gid) == 0 else {
                    throw PostgresError(.embeddedClusterFailed, message: "cannot chown \(path) to the PostgreSQL user: errno \(errno)")
                }
            }
        }
        _ = chmod(path, 0o700)
    }

    static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgresError(.embeddedClusterFailed, message: "socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw PostgresError(.embeddedClusterFailed, message: "cannot find a free loopback port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// FNV-1a 64 of a string.
func fnv1aValue(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    return hash
}

/// FNV-1a 64 of a string, as 16 hex digits.
func fnv1a(_ text: String) -> String {
    let hex = String(fnv1aValue(text), radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}
