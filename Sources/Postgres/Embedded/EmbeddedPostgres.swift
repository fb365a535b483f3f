import Foundation
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

    /// The defaults.
    public init() {}
}

/// A private PostgreSQL cluster run from Debian's server binaries: `initdb` on
/// first use, `pg_ctl start` on a private socket directory, `pg_ctl stop` at
/// the end. Used by `payql serve`/`migrate` when no database URL is given,
/// and by the test suites.
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
    /// Whether this process started the server (and so stops it).
    public let startedHere: Bool
    private let binDirectory: String
    private let runner: ProcessRunner
    private let logger: PostgresLogger

    private init(
        configuration: EmbeddedPostgresConfiguration, dataDirectory: String, socketDirectory: String, port: Int,
        startedHere: Bool, binDirectory: String, runner: ProcessRunner, logger: PostgresLogger
    ) {
        self.configuration = configuration
        self.dataDirectory = dataDirectory
        self.socketDirectory = socketDirectory
        self.port = port
        self.startedHere = startedHere
        self.binDirectory = binDirectory
        self.runner = runner
        self.logger = logger
    }

    /// A libpq connection string for `database` (or the configured database).
    public func connectionString(database: String? = nil) -> String {
        "host=\(socketDirectory) port=\(port) user=\(configuration.user) dbname=\(database ?? configuration.database)"
    }

    /// A pool-ready configuration for `database` (or the configured database).
    public func postgresConfiguration(database: String? = nil) throws -> PostgresConfiguration {
        try PostgresConfiguration(connectionString: connectionString(database: database))
    }

    /// Initialises the cluster if needed, starts it (or reuses the one already running
    /// on this data directory), and creates the database if missing.
    /// Throws `.embeddedClusterFailed` with the tools' output when anything fails.
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
        try createDirectory(dataDirectory, owner: owner)

        let socketDirectory = "/tmp/payql-pg-\(fnv1a(dataDirectory))"
        try createDirectory(socketDirectory, owner: owner)

        let runner = ProcessRunner(runAs: runAs)
        let pgctl = binDirectory + "/pg_ctl"
        if !FileManager.default.fileExists(atPath: dataDirectory + "/PG_VERSION") {
            logger.log(.info, "embedded postgres: initdb \(dataDirectory)")
            let output = try await runner.run(binDirectory + "/initdb", [
                "-D", dataDirectory, "-U", configuration.user, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync",
            ])
            guard output.status == 0 else {
                throw PostgresError(.embeddedClusterFailed, message: "initdb failed (status \(output.status)): \(output.text.trimmingTrailingNewlines)")
            }
        }

        var port: Int
        switch configuration.listen {
        case .socketOnly: port = 40000 + Int(fnv1aValue(dataDirectory) % 10000)
        case .loopback(let fixed): port = try fixed ?? freeLoopbackPort()
        }

        let status = try await runner.run(pgctl, ["status", "-D", dataDirectory])
        let running = status.status == 0
        if running {
            // postmaster.pid's 4th line is the port the running server actually uses.
            let lines = (try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8))?.split(separator: "\n", omittingEmptySubsequences: false) ?? []
            if lines.count > 3, let runningPort = Int(lines[3].trimmingCharacters(in: .whitespaces)) { port = runningPort }
            logger.log(.info, "embedded postgres: reusing the server already running on \(dataDirectory) (port \(port))")
        } else {
            var options = ["-c unix_socket_directories=\(socketDirectory)", "-p \(port)", "-c unix_socket_permissions=0700"]
            switch configuration.listen {
            case .socketOnly: options.append("-c listen_addresses=''")
            case .loopback: options.append("-c listen_addresses=127.0.0.1")
            }
            for (name, value) in configuration.serverSettings.sorted(by: { $0.key < $1.key }) {
                options.append("-c \(name)=\(value)")
            }
            logger.log(.info, "embedded postgres: starting on \(socketDirectory) port \(port)")
            let output = try await runner.run(pgctl, [
                "start", "-w", "-t", "60", "-D", dataDirectory, "-l", dataDirectory + "/payql-postgres.log",
                "-o", options.joined(separator: " "),
            ])
            guard output.status == 0 else {
                let log = (try? String(contentsOfFile: dataDirectory + "/payql-postgres.log", encoding: .utf8))?.suffix(2000) ?? ""
                throw PostgresError(.embeddedClusterFailed, message: "pg_ctl start failed (status \(output.status)): \(output.text.trimmingTrailingNewlines)\n\(log)")
            }
        }
        let cluster = EmbeddedPostgres(
            configuration: configuration, dataDirectory: dataDirectory, socketDirectory: socketDirectory, port: port,
            startedHere: !running, binDirectory: binDirectory, runner: runner, logger: logger
        )
        try await cluster.createDatabase(configuration.database)
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

    /// Stops the server with `pg_ctl stop -m fast` if this process started it
    /// (or always, with `force`). Connections still open are terminated.
    public func stop(force: Bool = false) async throws {
        guard startedHere || force else { return }
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
    private static func createDirectory(_ path: String, owner: (uid: uid_t, gid: gid_t)?) throws {
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

    private static func freeLoopbackPort() throws -> Int {
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
