internal import CLibPQ

/// The one owner of a `PGresult`, from the moment `PQgetResult` (or `PQexec`)
/// returns it: `PQclear` runs exactly once, in `deinit`, unless the result is
/// consumed into rows (`rows()`), whose storage then owns it. Noncopyable, so no
/// path can keep a second reference, free it twice, or forget it.
struct PostgresResult: ~Copyable {
    private let result: OpaquePointer

    /// Takes ownership of `result`; nil for NULL (no result).
    init?(_ result: OpaquePointer?) {
        guard let result else { return nil }
        self.result = result
    }

    deinit { PQclear(result) }

    /// `PQresultStatus`.
    var status: ExecStatusType { PQresultStatus(result) }

    /// Hands the result to the rows that will read it (they free it when the last copy goes).
    consuming func rows() -> PostgresResultStorage {
        let result = self.result
        discard self
        return PostgresResultStorage(result)
    }

    /// The server's error fields as a `PostgresError` (its query is set when it reaches a statement).
    func serverError() -> PostgresError {
        func field(_ code: Character) -> String? {
            guard let ascii = code.asciiValue, let value = PQresultErrorField(result, Int32(ascii)) else { return nil }
            return String(cString: value)
        }
        let sqlState = field("C")
        let message = field("M") ?? String(cString: PQresultErrorMessage(result)).trimmingTrailingNewlines
        return PostgresError(
            sqlState.map(PostgresError.Code.forSQLState) ?? .server,
            message: message, sqlState: sqlState, detail: field("D"), hint: field("H"), constraint: field("n")
        )
    }
}

/// Owns one `PGresult` handed over by `PostgresResult.rows()`, and frees it once,
/// when the last `PostgresRows`/`PostgresRow` that reads it goes.
///
/// `@unchecked Sendable`: libpq never mutates a `PGresult` after handing it
/// out, and documents results as independent of their connection and safe to
/// read from any thread; this class only reads it and frees it in `deinit`.
final class PostgresResultStorage: @unchecked Sendable {
    let result: OpaquePointer
    let rowCount: Int
    let columnCount: Int

    /// Only `PostgresResult.rows()` creates one: ownership passes from one owner to the other.
    fileprivate init(_ result: OpaquePointer) {
        self.result = result
        rowCount = Int(PQntuples(result))
        columnCount = Int(PQnfields(result))
    }

    deinit { PQclear(result) }

    func columnName(_ column: Int) -> String {
        guard let name = PQfname(result, Int32(column)) else { return "?column?" }
        return String(cString: name)
    }

    func columnIndex(_ name: String) -> Int? {
        for column in 0..<columnCount where columnName(column) == name { return column }
        return nil
    }

    @inline(__always)
    func decode<Value: PostgresDecodable>(_ type: Value.Type, row: Int, column: Int) throws -> Value {
        guard column >= 0, column < columnCount else {
            throw PostgresError(.decodingFailed, message: "column \(column) does not exist (the row has \(columnCount) columns)")
        }
        let r = Int32(row), c = Int32(column)
        if PQgetisnull(result, r, c) != 0 {
            do { return try Value.decodeNull() } catch { throw wrap(error, column: column) }
        }
        let length = Int(PQgetlength(result, r, c))
        let dataType = PostgresDataType(oid: PQftype(result, c))
        guard let value = PQgetvalue(result, r, c) else {
            throw PostgresError(.decodingFailed, message: "libpq returned no value for column \(column)")
        }
        do {
            return try Value.decode(text: UnsafeRawBufferPointer(start: value, count: length), type: dataType)
        } catch {
            throw wrap(error, column: column)
        }
    }

    private func wrap(_ error: any Error, column: Int) -> PostgresError {
        let reason = (error as? PostgresDecodingFailure)?.reason ?? "\(error)"
        return PostgresError(.decodingFailed, message: "column \(column) (\(columnName(column))): \(reason)")
    }
}

/// The rows a statement returned (possibly none), with its command tag.
public struct PostgresRows: Sendable, RandomAccessCollection {
    let storage: PostgresResultStorage?

    /// The command tag (`SELECT 1`, `INSERT 0 3`, `UPDATE 2`, ...), read from the
    /// result when asked (most callers never do: no string made per statement).
    public var commandTag: String {
        guard let result = storage?.result, let tag = PQcmdStatus(result) else { return "" }
        return String(cString: tag)
    }

    /// Rows inserted, updated, deleted, selected, ... as reported by the command tag; 0 if none.
    public var affectedRows: Int {
        guard let result = storage?.result, let tuples = PQcmdTuples(result) else { return 0 }
        return Int(String(cString: tuples)) ?? 0
    }

    init(storage: PostgresResultStorage?) {
        self.storage = storage
    }

    /// Column names, in order.
    public var columns: [String] {
        guard let storage else { return [] }
        return (0..<storage.columnCount).map(storage.columnName)
    }

    /// The first row's index, 0.
    public var startIndex: Int { 0 }
    /// The number of rows.
    public var endIndex: Int { storage?.rowCount ?? 0 }
    /// The row at `position` (0-based).
    public subscript(position: Int) -> PostgresRow {
        precondition(position >= 0 && position < endIndex, "row index out of range")
        // storage is non-nil whenever endIndex > 0, which the precondition above established; checked all the same.
        guard let storage else { preconditionFailure("rows without a result have no row \(position)") }
        return PostgresRow(storage: storage, index: position)
    }

    /// Every row decoded as a tuple of the given types, one per column in order.
    public func decode<each Column: PostgresDecodable>(_ types: (repeat each Column).Type) throws -> [(repeat each Column)] {
        try map { try $0.decode(types) }
    }

    /// Every row's first column as `type`.
    public func decode<Value: PostgresDecodable>(_ type: Value.Type) throws -> [Value] {
        try map { try $0.decode(type, at: 0) }
    }

    /// The one row's first column, or nil when there is no row; throws if there are several.
    public func single<Value: PostgresDecodable>(_ type: Value.Type) throws -> Value? {
        guard count <= 1 else { throw PostgresError(.decodingFailed, message: "expected at most one row, got \(count)") }
        return try first?.decode(type, at: 0)
    }

    /// The one row's columns, or nil when there is no row; throws if there are several.
    public func single<each Column: PostgresDecodable>(_ types: (repeat each Column).Type) throws -> (repeat each Column)? {
        guard count <= 1 else { throw PostgresError(.decodingFailed, message: "expected at most one row, got \(count)") }
        return try first?.decode(types)
    }
}

/// One row of a result; decode its columns by position or name.
public struct PostgresRow: Sendable {
    let storage: PostgresResultStorage
    let index: Int

    /// The column at `column` (0-based) as `type`.
    public func decode<Value: PostgresDecodable>(_ type: Value.Type, at column: Int) throws -> Value {
        try storage.decode(type, row: index, column: column)
    }

    /// The column named `name` as `type`.
    public func decode<Value: PostgresDecodable>(_ type: Value.Type, column name: String) throws -> Value {
        guard let column = storage.columnIndex(name) else {
            throw PostgresError(.decodingFailed, message: "no column named '\(name)'")
        }
        return try storage.decode(type, row: index, column: column)
    }

    /// The first column as `type`.
    public func decode<Value: PostgresDecodable>(_ type: Value.Type) throws -> Value {
        try storage.decode(type, row: index, column: 0)
    }

    /// The first columns, in order, as a tuple of the given types.
    public func decode<each Column: PostgresDecodable>(_ types: (repeat each Column).Type) throws -> (repeat each Column) {
        var column = 0
        func next<Value: PostgresDecodable>(_ type: Value.Type) throws -> Value {
            defer { column += 1 }
            return try storage.decode(type, row: index, column: column)
        }
        return (repeat try next((each Column).self))
    }
}
