#if canImport(Glibc)
import Glibc
#endif

/// Command-line options with `PAYQL_*` environment fall-backs.
///
/// Accepts `--name value`, `--name=value` and bare `--flag`; everything that
/// does not start with `--` is positional. `--help` and `-h` are flags of every
/// command (`wantsHelp`), never options waiting for a value. A flag's environment variable is
/// `PAYQL_` + the name upper-cased with `-` as `_` (`--max-body-bytes` ↔
/// `PAYQL_MAX_BODY_BYTES`). The command line wins over the environment.
struct Options {
    private(set) var values: [String: [String]] = [:]
    private(set) var positional: [String] = []

    /// Parses `arguments`; `flags` names the options that take no value.
    init(_ arguments: [String], flags: Set<String> = []) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if Options.isHelp(argument) {
                values["help", default: []].append("true")
                continue
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positional.append(argument)
                continue
            }
            let body = argument.dropFirst(2)
            if let equals = body.firstIndex(of: "=") {
                values[String(body[..<equals]), default: []].append(String(body[body.index(after: equals)...]))
            } else if flags.contains(String(body)) {
                values[String(body), default: []].append("true")
            } else if index < arguments.count, Options.isHelp(arguments[index]) {
                // `--provider --help`: help, not a provider named "--help".
                values["help", default: []].append("true")
                index += 1
            } else {
                guard index < arguments.count else { throw UsageError("--\(body) needs a value") }
                values[String(body), default: []].append(arguments[index])
                index += 1
            }
        }
    }

    /// Whether `--help` or `-h` was given (on the command line only: `PAYQL_HELP` is not read).
    var wantsHelp: Bool { values["help"] != nil }

    /// The last value given for `name` on the command line, else `PAYQL_NAME` from the environment.
    func string(_ name: String) -> String? {
        if let value = values[name]?.last { return value }
        return Environment.get(Options.environmentName(name))
    }

    /// Whether `name` was given on the command line (not the environment).
    func isOnCommandLine(_ name: String) -> Bool { values[name] != nil }

    /// A secret: only from the environment variable `PAYQL_NAME`, never from the command line
    /// (where `ps` and shell history would show it).
    func secret(_ name: String) throws -> String? {
        guard !isOnCommandLine(name) else {
            throw UsageError("--\(name) is a secret: set \(Options.environmentName(name)) in the environment instead")
        }
        guard let value = Environment.get(Options.environmentName(name)), !value.isEmpty else { return nil }
        return value
    }

    /// Every value given for a repeatable option (`--header a --header b`).
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// An integer option, or `defaultValue`; a non-integer is a usage error.
    func int(_ name: String, default defaultValue: Int) throws -> Int {
        guard let text = string(name) else { return defaultValue }
        guard let value = Int(text) else { throw UsageError("--\(name) must be an integer, got '\(text)'") }
        return value
    }

    /// A boolean flag: present, or `true`/`1`/`yes` in the environment.
    func bool(_ name: String, default defaultValue: Bool = false) throws -> Bool {
        guard let text = string(name) else { return defaultValue }
        switch text.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default: throw UsageError("--\(name) must be true or false, got '\(text)'")
        }
    }

    private static func isHelp(_ argument: String) -> Bool { argument == "--help" || argument == "-h" }

    static func environmentName(_ name: String) -> String {
        "PAYQL_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }
}

/// Reads the process environment; only the executable does this.
enum Environment {
    static func get(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }
}

extension String {
    /// Replaces every occurrence of `target` with `replacement` (no Foundation needed).
    func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
