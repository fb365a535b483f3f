#if canImport(Glibc)
import Glibc
#endif
import GraphQL

/// `payql graphql format|validate|bench`: GraphQL tools for users' CI.
///
/// - `format [FILE]`: the document in canonical form (graphql-js's `print`) on
///   stdout; reads stdin without FILE. A syntax error prints
///   `ERROR line:col message` on stderr and exits 1.
/// - `validate --schema SDL_FILE [FILE]`: each validation error as
///   `line:col message` on stdout, exit 1 if any; syntax errors as in
///   `format`; an unusable schema prints its problems on stderr and exits 2.
/// - `bench ...`: the engine benchmark (see Benchmarks/graphql).
///
/// Input bytes that are not valid UTF-8 are repaired (each bad sequence
/// becomes U+FFFD), as node's `readFileSync(path, "utf8")` does.
enum GraphQLCommand {
    static let usage = """
    usage: payql graphql format [--max-bytes N] [--max-tokens N] [--max-depth N] [FILE]
           payql graphql validate --schema SDL_FILE [--max-bytes N] [--max-tokens N] [--max-depth N] [FILE]
           payql graphql bench [--workload DIR] [--seconds 3] [--check] [--json] [--only PHASE]
    Without FILE the document is read from standard input.
    """

    static func run(_ arguments: [String], streams: StandardStreams) async throws -> Int32 {
        guard let subcommand = arguments.first else { throw UsageError(usage) }
        let rest = Array(arguments.dropFirst())
        switch subcommand {
        case "format": return try format(rest, streams: streams)
        case "validate": return try validate(rest, streams: streams)
        case "bench": return try await GraphQLBenchCommand.run(rest)
        case "help", "--help", "-h":
            print(usage)
            return 0
        default: throw UsageError("unknown subcommand '\(subcommand)'\n\(usage)")
        }
    }

    /// Limits for documents given on the command line: the defaults, with
    /// `--max-bytes`, `--max-tokens`, `--max-depth` (or `PAYQL_MAX_*`) to override.
    static func limits(_ options: Options) throws -> ParserLimits {
        let defaults = ParserLimits()
        return ParserLimits(maxBytes: try options.int("max-bytes", default: defaults.maxBytes),
                            maxTokens: try options.int("max-tokens", default: defaults.maxTokens),
                            maxDepth: try options.int("max-depth", default: defaults.maxDepth))
    }

    static func format(_ arguments: [String], streams: StandardStreams) throws -> Int32 {
        let options = try Options(arguments)
        if options.wantsHelp {
            print(usage)
            return 0
        }
        guard options.positional.count <= 1 else { throw UsageError("format takes at most one FILE") }
        let text = try readInput(options.positional.first, streams: streams)
        do {
            let document = try Parser.parse(Source(body: text, name: options.positional.first ?? "<stdin>"),
                                            limits: try limits(options))
            writeOut(Printer.print(document) + "\n")
            return 0
        } catch let error as GraphQLError {
            printError(errorLine(error))
            return 1
        }
    }

    static func validate(_ arguments: [String], streams: StandardStreams) throws -> Int32 {
        let options = try Options(arguments)
        if options.wantsHelp {
            print(usage)
            return 0
        }
        guard let schemaPath = options.string("schema") else { throw UsageError("validate needs --schema SDL_FILE") }
        guard options.positional.count <= 1 else { throw UsageError("validate takes at most one FILE") }
        let schema: GraphQLSchema
        do {
            schema = try GraphQLSchema(sdl: try readInput(schemaPath, streams: streams))
        } catch let error as SchemaError {
            // The schema itself is unusable: report where, and exit as for bad usage.
            for problem in error.errors { printError(errorLine(problem, prefix: "\(schemaPath): ")) }
            return 2
        }
        let text = try readInput(options.positional.first, streams: streams)
        let document: Document
        do {
            document = try Parser.parse(Source(body: text, name: options.positional.first ?? "<stdin>"),
                                        limits: try limits(options))
        } catch let error as GraphQLError {
            printError(errorLine(error))
            return 1
        }
        let errors = GraphQL.validate(schema: schema, document: document)
        writeOut(errors.map { errorLine($0, prefix: "") + "\n" }.joined())
        return errors.isEmpty ? 0 : 1
    }

    /// `line:col message` for the error's first location (`ERROR ` prefix for syntax errors).
    static func errorLine(_ error: GraphQLError, prefix: String = "ERROR ") -> String {
        guard let location = error.locations.first else { return prefix + error.message }
        return "\(prefix)\(location.line):\(location.column) \(error.message)"
    }

    /// The whole of FILE, or of stdin when `path` is nil, as a string.
    static func readInput(_ path: String?, streams: StandardStreams) throws -> String {
        let descriptor: Int32
        if path == nil, streams.inputWasClosed {
            throw UsageError("standard input is closed: give a FILE or pipe the document in")
        }
        if let path {
            descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else {
                throw UsageError("cannot open '\(path)': \(String(cString: strerror(errno)))")
            }
        } else {
            descriptor = 0
        }
        defer { if descriptor != 0 { close(descriptor) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw UsageError("cannot read '\(path ?? "stdin")': \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes all of `text` to stdout.
    static func writeOut(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(1, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
