internal import CLibPQ

/// How to reach and configure a PostgreSQL server. Parsed once (by the
/// executable) and passed down; nothing here reads the environment.
public struct PostgresConfiguration: Sendable, CustomStringConvertible {
    /// The libpq connection string: a `postgresql://` URL or `key=value` pairs.
    /// May contain a password: it is never printed.
    public var connectionString: String
    /// `application_name`, visible in `pg_stat_activity`.
    public var applicationName: String = "payql"
    /// Server-side `statement_timeout`; a statement running longer fails with `.queryCanceled`. nil = server default.
    public var statementTimeout: Duration? = .seconds(30)
    /// How long opening a connection may take (libpq `connect_timeout`, whole seconds, at least 2).
    public var connectTimeout: Duration = .seconds(10)
    /// More run-time parameters sent at connection start (`search_path`, `lock_timeout`, ...).
    public var runtimeParameters: [String: String] = [:]
    /// Prepared statements kept per connection; beyond it, statements run unnamed (parsed each time).
    public var preparedStatementCacheSize: Int = 512

    /// A configuration from a URL or conninfo string; throws `.invalidInput` if libpq cannot parse it.
    public init(connectionString: String) throws {
        self.connectionString = connectionString
        _ = try parsedOptions()
    }

    /// Host, port, database and user (never the password).
    public var description: String {
        let options = (try? parsedOptions()) ?? [:]
        let host = options["host"] ?? options["hostaddr"] ?? "(default)"
        return "postgres host=\(host) port=\(options["port"] ?? "(default)") dbname=\(options["dbname"] ?? "(default)") user=\(options["user"] ?? "(default)")"
    }

    /// The keywords libpq parsed from `connectionString`.
    func parsedOptions() throws -> [String: String] {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &errorMessage) else {
            let message = errorMessage.map { String(cString: $0) } ?? "out of memory"
            if let errorMessage { PQfreemem(errorMessage) }
            throw PostgresError(.invalidInput, message: "invalid connection string: \(message.trimmingTrailingNewlines)")
        }
        defer { PQconninfoFree(options) }
        var result: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { result[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return result
    }

    /// The keyword/value pairs handed to `PQconnectdbParams`: the parsed string plus
    /// PayQL's session settings (UTC, ISO dates, UTF-8, exact floats, hex bytea).
    func connectionParameters() throws -> [(String, String)] {
        var options = try parsedOptions()
        var settings: [(String, String)] = [
            ("TimeZone", "UTC"), ("DateStyle", "ISO, MDY"), ("extra_float_digits", "3"),
            ("bytea_output", "hex"), ("IntervalStyle", "postgres"),
        ]
        if let statementTimeout {
            settings.append(("statement_timeout", "\(statementTimeout.milliseconds)"))
        }
        for (name, value) in runtimeParameters.sorted(by: { $0.key < $1.key }) { settings.append((name, value)) }
        var commandLine = options["options"].map { [$0] } ?? []
        for (name, value) in settings {
            commandLine.append("-c " + escapeOption(name) + "=" + escapeOption(value))
        }
        options["options"] = commandLine.joined(separator: " ")
        options["client_encoding"] = "UTF8"
        options["application_name"] = applicationName
        options["connect_timeout"] = String(max(2, connectTimeout.components.seconds))
        return options.sorted { $0.key < $1.key }
    }

    /// Escapes spaces and backslashes, as libpq's `options` requires.
    private func escapeOption(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == " " || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var text = self
        while text.last == "\n" || text.last == " " { text.removeLast() }
        return text
    }
}
