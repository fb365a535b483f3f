// Type look-ups shared by the rules (graphql-js typeFromAST, getFieldDef, ...)
// and the conversion of error offsets into line:column locations.

extension DocumentValidator {
    /// graphql-js `typeFromAST`: the schema type a written type denotes, or nil
    /// when its named type does not exist.
    func typeFromAST(_ type: TypeReference) -> GraphQLTypeReference? {
        switch type {
        case .named(let named):
            return catalog.type(named: named.name.value) == nil ? nil : .named(named.name.value)
        case .list(let list):
            return typeFromAST(list.type).map { .list($0) }
        case .nonNull(let nonNull):
            return typeFromAST(nonNull.type).map { .nonNull($0) }
        }
    }

    /// The root type of an operation, if the schema has one (an object type).
    func rootType(of operation: OperationType) -> ValidationType? {
        switch operation {
        case .query: catalog.queryRoot
        case .mutation: catalog.mutationRoot
        case .subscription: catalog.subscriptionRoot
        }
    }

    // MARK: Locations

    /// The errors with their offsets turned into lines and UTF-16 columns, in one
    /// pass over the source whatever the number of errors.
    func locate() -> [GraphQLError] {
        guard !errors.isEmpty else { return [] }
        var offsets: [Int] = []
        for error in errors { offsets.append(contentsOf: error.offsets) }
        let table = SourceLocationTable(source: document.source, offsets: offsets)
        return errors.map { error in
            GraphQLError(error.message, locations: error.offsets.map { table.location(of: $0) })
        }
    }
}

/// Line and column of a set of byte offsets, found by one scan of the source.
struct SourceLocationTable {
    private var locations: [Int: SourceLocation] = [:]

    init(source: Source, offsets: [Int]) {
        let wanted = Array(Set(offsets)).sorted()
        guard !wanted.isEmpty else { return }
        var body = source.body
        body.makeContiguousUTF8()
        var found: [Int: SourceLocation] = [:]
        body.utf8.withContiguousStorageIfAvailable { bytes in
            var line = 1
            var column = 1
            var index = 0
            var next = 0
            let count = bytes.count
            while next < wanted.count {
                let target = min(max(wanted[next], 0), count)
                while index < target {
                    let byte = bytes[index]
                    if byte == 0x0A {
                        line += 1
                        column = 1
                    } else if byte == 0x0D {
                        // `\r\n` is one line break.
                        if index + 1 < count, bytes[index + 1] == 0x0A { index += 1 }
                        line += 1
                        column = 1
                    } else if byte & 0xC0 != 0x80 {
                        // A lead byte; a 4-byte sequence is a surrogate pair in UTF-16.
                        column += byte >= 0xF0 ? 2 : 1
                    }
                    index += 1
                }
                found[wanted[next]] = SourceLocation(line: line, column: column)
                next += 1
            }
        }
        locations = found
    }

    func location(of offset: Int) -> SourceLocation {
        locations[offset] ?? SourceLocation(line: 1, column: 1)
    }
}
