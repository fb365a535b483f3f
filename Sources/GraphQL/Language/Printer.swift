// The printer: the canonical text of a document, identical to graphql-js 16's
// `print` (the de-facto canonical form): two-space indentation, arguments of a
// field wrapped one per line when the single-line form exceeds 80 UTF-16 code
// units, block strings printed as graphql-js prints them.

/// Prints AST nodes back to GraphQL text.
public enum Printer {
    /// The canonical text of `document` (definitions separated by a blank line, no trailing newline).
    public static func print(_ document: Document) -> String {
        var writer = PrintWriter()
        for (index, definition) in document.definitions.enumerated() {
            if index > 0 { writer.raw("\n\n") }
            writer.definition(definition)
        }
        return writer.result
    }

    /// The canonical text of one definition.
    public static func print(_ definition: Definition) -> String {
        var writer = PrintWriter()
        writer.definition(definition)
        return writer.result
    }

    /// The canonical text of a value, e.g. `{a: [1, "x"]}`.
    public static func print(_ value: Value) -> String {
        var writer = PrintWriter()
        writer.value(value)
        return writer.result
    }

    /// The canonical text of a type reference, e.g. `[String!]!`.
    public static func print(_ type: TypeReference) -> String {
        var writer = PrintWriter()
        writer.type(type)
        return writer.result
    }

    /// A string as a GraphQL string literal with graphql-js's escapes.
    public static func printString(_ value: String) -> String {
        var writer = PrintWriter()
        writer.quotedString(value)
        return writer.result
    }
}

/// Accumulates UTF-8 output; every line break written is followed by the current indentation.
struct PrintWriter {
    private(set) var bytes: [UInt8] = []
    private var indentation = 0

    var result: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends text without line breaks of its own (names, punctuation).
    @inline(__always)
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends text that may contain line breaks, indenting each following line.
    mutating func text(_ text: String) {
        for byte in text.utf8 {
            bytes.append(byte)
            if byte == 0x0A { appendIndentation() }
        }
    }

    /// Appends another writer's output, indenting its lines.
    mutating func append(_ other: PrintWriter) {
        if indentation == 0 {
            bytes.append(contentsOf: other.bytes)
            return
        }
        for byte in other.bytes {
            bytes.append(byte)
            if byte == 0x0A { appendIndentation() }
        }
    }

    mutating func newline() {
        bytes.append(0x0A)
        appendIndentation()
    }

    private mutating func appendIndentation() {
        for _ in 0..<indentation { bytes.append(0x20) }
    }

    /// `{`, then each item on its own indented line, then `}` (graphql-js's `block`).
    mutating func block<T>(_ items: [T], _ print: (inout PrintWriter, T) -> Void) {
        raw("{")
        indentation += 2
        for item in items {
            newline()
            print(&self, item)
        }
        indentation -= 2
        newline()
        raw("}")
    }

    /// Items separated by `separator` on one line.
    mutating func list<T>(_ items: [T], separator: String, _ print: (inout PrintWriter, T) -> Void) {
        for (index, item) in items.enumerated() {
            if index > 0 { raw(separator) }
            print(&self, item)
        }
    }

    /// Items each on its own indented line between `open` and `close` (wrapped argument lists).
    mutating func indentedLines(_ items: [PrintWriter], open: String, close: String) {
        raw(open)
        indentation += 2
        for item in items {
            newline()
            append(item)
        }
        indentation -= 2
        newline()
        raw(close)
    }

    /// Number of UTF-16 code units in the output so far (graphql-js measures line length so).
    var utf16Count: Int {
        var count = 0
        for byte in bytes where byte & 0xC0 != 0x80 { count += byte >= 0xF0 ? 2 : 1 }
        return count
    }

    var containsNewline: Bool { bytes.contains(0x0A) }

    // MARK: Executable definitions

    mutating func definition(_ definition: Definition) {
        switch definition {
        case .operation(let node): operation(node)
        case .fragment(let node): fragmentDefinition(node)
        case .schema(let node): schemaDefinition(node)
        case .schemaExtension(let node): schemaExtension(node)
        case .type(let node): typeDefinition(node)
        case .typeExtension(let node): typeExtension(node)
        case .directive(let node): directiveDefinition(node)
        }
    }

    mutating func operation(_ node: OperationDefinition) {
        let anonymousQuery = node.operation == .query && node.name == nil
            && node.variableDefinitions.isEmpty && node.directives.isEmpty
        if !anonymousQuery {
            raw(node.operation.rawValue)
            if node.name != nil || !node.variableDefinitions.isEmpty {
                raw(" ")
                if let name = node.name { raw(name.value) }
                if !node.variableDefinitions.isEmpty {
                    raw("(")
                    list(node.variableDefinitions, separator: ", ") { $0.variableDefinition($1) }
                    raw(")")
                }
            }
            if !node.directives.isEmpty {
                raw(" ")
                directives(node.directives)
            }
            raw(" ")
        }
        selectionSet(node.selectionSet)
    }

    mutating func variableDefinition(_ node: VariableDefinition) {
        raw("$")
        raw(node.variable.name.value)
        raw(": ")
        type(node.type)
        if let defaultValue = node.defaultValue {
            raw(" = ")
            value(defaultValue)
        }
        if !node.directives.isEmpty {
            raw(" ")
            directives(node.directives)
        }
    }

    mutating func selectionSet(_ node: SelectionSet) {
        block(node.selections) { $0.selection($1) }
    }

    mutating func selection(_ node: Selection) {
        switch node {
        case .field(let field): self.field(field)
        case .fragmentSpread(let spread):
            raw("...")
            raw(spread.name.value)
            if !spread.directives.isEmpty {
                raw(" ")
                directives(spread.directives)
            }
        case .inlineFragment(let fragment):
            raw("...")
            if let typeCondition = fragment.typeCondition {
                raw(" on ")
                raw(typeCondition.name.value)
            }
            if !fragment.directives.isEmpty {
                raw(" ")
                directives(fragment.directives)
            }
            raw(" ")
            selectionSet(fragment.selectionSet)
        }
    }

    mutating func field(_ node: Field) {
        if node.arguments.isEmpty {
            if let alias = node.alias {
                raw(alias.value)
                raw(": ")
            }
            raw(node.name.value)
        } else {
            // graphql-js measures `alias: name(args)` printed on one line, without indentation.
            var line = PrintWriter()
            if let alias = node.alias {
                line.raw(alias.value)
                line.raw(": ")
            }
            line.raw(node.name.value)
            line.raw("(")
            line.list(node.arguments, separator: ", ") { $0.argument($1) }
            line.raw(")")
            if line.utf16Count > 80 {
                if let alias = node.alias {
                    raw(alias.value)
                    raw(": ")
                }
                raw(node.name.value)
                let arguments = node.arguments.map { argument -> PrintWriter in
                    var writer = PrintWriter()
                    writer.argument(argument)
                    return writer
                }
                indentedLines(arguments, open: "(", close: ")")
            } else {
                append(line)
            }
        }
        if !node.directives.isEmpty {
            raw(" ")
            directives(node.directives)
        }
        if let selectionSet = node.selectionSet {
            raw(" ")
            self.selectionSet(selectionSet)
        }
    }

    mutating func argument(_ node: Argument) {
        raw(node.name.value)
        raw(": ")
        value(node.value)
    }

    mutating func fragmentDefinition(_ node: FragmentDefinition) {
        raw("fragment ")
        raw(node.name.value)
        raw(" on ")
        raw(node.typeCondition.name.value)
        raw(" ")
        if !node.directives.isEmpty {
            directives(node.directives)
            raw(" ")
        }
        selectionSet(node.selectionSet)
    }

    mutating func directives(_ nodes: [Directive]) {
        list(nodes, separator: " ") { $0.directive($1) }
    }

    mutating func directive(_ node: Directive) {
        raw("@")
        raw(node.name.value)
        if !node.arguments.isEmpty {
            raw("(")
            list(node.arguments, separator: ", ") { $0.argument($1) }
            raw(")")
        }
    }

    // MARK: Values and types

    mutating func value(_ node: Value) {
        switch node {
        case .variable(let variable):
            raw("$")
            raw(variable.name.value)
        case .int(let int): raw(int.value)
        case .float(let float): raw(float.value)
        case .string(let string):
            if string.block {
                text(BlockString.print(string.value))
            } else {
                quotedString(string.value)
            }
        case .boolean(let boolean): raw(boolean.value ? "true" : "false")
        case .null: raw("null")
        case .enumValue(let enumValue): raw(enumValue.value)
        case .list(let list):
            raw("[")
            self.list(list.values, separator: ", ") { $0.value($1) }
            raw("]")
        case .object(let object):
            raw("{")
            list(object.fields, separator: ", ") { writer, field in
                writer.raw(field.name.value)
                writer.raw(": ")
                writer.value(field.value)
            }
            raw("}")
        }
    }

    mutating func type(_ node: TypeReference) {
        switch node {
        case .named(let named): raw(named.name.value)
        case .list(let list):
            raw("[")
            type(list.type)
            raw("]")
        case .nonNull(let nonNull):
            type(nonNull.type)
            raw("!")
        }
    }

    /// `"..."` escaping C0 and C1 controls, `"` and `\` as graphql-js's `printString` does.
    mutating func quotedString(_ value: String) {
        bytes.append(0x22)
        var iterator = value.utf8.makeIterator()
        var pending: UInt8? = nil
        while let byte = pending ?? iterator.next() {
            pending = nil
            switch byte {
            case 0x08: raw("\\b")
            case 0x09: raw("\\t")
            case 0x0A: raw("\\n")
            case 0x0C: raw("\\f")
            case 0x0D: raw("\\r")
            case 0x22: raw("\\\"")
            case 0x5C: raw("\\\\")
            case 0x00..<0x20, 0x7F:
                raw("\\u" + Lexer.hex4(UInt32(byte)))
            case 0xC2:
                // U+0080...U+009F are C2 80...C2 9F in UTF-8.
                guard let next = iterator.next() else {
                    bytes.append(byte)
                    break
                }
                if next >= 0x80, next <= 0x9F {
                    raw("\\u" + Lexer.hex4(UInt32(next)))
                } else {
                    bytes.append(byte)
                    pending = next
                }
            default:
                bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }
}
