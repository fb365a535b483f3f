import Foundation
@testable import GraphQL

/// Helpers shared by the language tests (fixtures are read relative to this file).
enum LanguageFixtures {
    /// `Tests/GraphQLTests/Fixtures/language`.
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/language")

    /// Names (without extension) of the `.graphql` files in `subdirectory`.
    static func names(in subdirectory: String) -> [String] {
        let url = directory.appendingPathComponent(subdirectory)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return files.filter { $0.hasSuffix(".graphql") }.map { String($0.dropLast(".graphql".count)) }.sorted()
    }

    /// The contents of `subdirectory/file`, bytes decoded as UTF-8.
    static func text(_ subdirectory: String, _ file: String) throws -> String {
        let data = try Data(contentsOf: directory.appendingPathComponent(subdirectory).appendingPathComponent(file))
        return String(decoding: data, as: UTF8.self)
    }
}

/// `print(parse(text))`, or `ERROR line:col message`: the form the fixtures store.
func formatOrError(_ text: String, limits: ParserLimits = .init()) -> String {
    do {
        return Printer.print(try Parser.parse(text, limits: limits))
    } catch {
        return errorLine(error)
    }
}

/// `ERROR line:col message`.
func errorLine(_ error: GraphQLError) -> String {
    let location = error.locations.first.map { "\($0.line):\($0.column) " } ?? ""
    return "ERROR \(location)\(error.message)"
}

/// The syntax error `text` raises, as `ERROR line:col message`; nil if it parses.
func parseError(_ text: String, limits: ParserLimits = .init()) -> String? {
    do {
        _ = try Parser.parse(text, limits: limits)
        return nil
    } catch {
        return errorLine(error)
    }
}

/// The only selection of the first operation's selection set, as a field.
func firstField(_ document: Document) -> Field? {
    guard case .operation(let operation)? = document.definitions.first,
          case .field(let field)? = operation.selectionSet.selections.first else { return nil }
    return field
}

/// The value of the first argument of the first field of `document`.
func firstArgumentValue(_ text: String) throws -> Value? {
    firstField(try Parser.parse(text))?.arguments.first?.value
}
