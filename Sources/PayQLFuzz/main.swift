// libFuzzer entry for the GraphQL parser and printer.
//
// Built with `swift build -Xswiftc -sanitize=fuzzer -Xswiftc -DPAYQL_FUZZING`
// (see scripts/fuzz-parser.sh), this program hands control to libFuzzer,
// which calls `LLVMFuzzerTestOneInput` with generated inputs. Each input is
// parsed; whatever parses is printed, the print re-parsed and re-printed, and
// the two prints must be identical. Any crash, hang or failed check is a bug.
//
// In a normal build it reads one document from stdin and runs the same check
// once (exit 0: checked; exit 1: the input is not a valid document).

#if canImport(Glibc)
import Glibc
#endif
import GraphQL

/// True when the printed form of `document` cannot be read back, as graphql-js's
/// cannot either: a type definition or extension without a body (`type T`,
/// `extend enum E @d`) followed by an anonymous query, which prints in its
/// shorthand form `{ ... }` and so reads back as the type's body. PayQL prints
/// what graphql-js prints (see docs/graphql-language.md), so such documents
/// are exempt from the round-trip check.
func printsAmbiguously(_ document: Document) -> Bool {
    for (definition, next) in zip(document.definitions, document.definitions.dropFirst()) {
        guard case .operation(let operation) = next, operation.operation == .query, operation.name == nil,
              operation.variableDefinitions.isEmpty, operation.directives.isEmpty else { continue }
        switch definition {
        case .type(.object(let node)) where node.fields.isEmpty: return true
        case .type(.interface(let node)) where node.fields.isEmpty: return true
        case .type(.enumType(let node)) where node.values.isEmpty: return true
        case .type(.inputObject(let node)) where node.fields.isEmpty: return true
        case .typeExtension(.object(let node)) where node.fields.isEmpty: return true
        case .typeExtension(.interface(let node)) where node.fields.isEmpty: return true
        case .typeExtension(.enumType(let node)) where node.values.isEmpty: return true
        case .typeExtension(.inputObject(let node)) where node.fields.isEmpty: return true
        case .schemaExtension(let node) where node.operationTypes.isEmpty: return true
        default: continue
        }
    }
    return false
}

/// Runs the parse → print → parse → print check on one input; traps on a disagreement.
@discardableResult
func checkRoundTrip(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    // Invalid UTF-8 is repaired to U+FFFD, as every caller of the parser sees it.
    let text = String(decoding: bytes, as: UTF8.self)
    guard let document = try? Parser.parse(text, limits: ParserLimits(maxBytes: 1 << 16, maxTokens: 4_096, maxDepth: 64)) else {
        return false
    }
    if printsAmbiguously(document) { return true }
    let printed = Printer.print(document)
    let reparsed: Document
    do {
        reparsed = try Parser.parse(printed, limits: .sdl)
    } catch {
        fatalError("printed document does not parse (\(error)):\n\(printed)")
    }
    let reprinted = Printer.print(reparsed)
    precondition(reprinted == printed, "print is not a fixed point:\n\(printed)\n---\n\(reprinted)")
    return true
}

/// libFuzzer's per-input callback.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    checkRoundTrip(UnsafeBufferPointer(start: data, count: size))
    return 0
}

#if PAYQL_FUZZING
/// libFuzzer's driver (in the fuzzer runtime linked by `-sanitize=fuzzer`). SwiftPM
/// renames an executable's `main`, so this program calls the driver itself.
/// Declared by symbol name: the signature is libFuzzer's documented C one
/// (`int LLVMFuzzerRunDriver(int *, char ***, int (*)(const uint8_t *, size_t))`).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzTestOneInput(data, size) })
#else
var input: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 65_536)
while true {
    let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
    if count < 0, errno == EINTR { continue }
    if count <= 0 { break }
    input.append(contentsOf: chunk[0..<count])
}
let parsed = input.withUnsafeBufferPointer { checkRoundTrip($0) }
if !parsed { print("not a valid GraphQL document") }
// 0: the document parsed and round-tripped; 1: it did not parse.
exit(parsed ? 0 : 1)
#endif
