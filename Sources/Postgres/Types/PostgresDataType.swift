/// A PostgreSQL type OID, as sent with bound parameters and reported for result columns.
public struct PostgresDataType: Hashable, Sendable, CustomStringConvertible {
    /// The type's OID (`pg_type.oid`).
    public var oid: UInt32
    /// Wraps an OID.
    public init(oid: UInt32) { self.oid = oid }

    /// Let the server infer the type from the statement (used for strings).
    public static let unspecified = PostgresDataType(oid: 0)
    /// `bool` (OID 16).
    public static let bool = PostgresDataType(oid: 16)
    /// `bytea` (OID 17).
    public static let bytea = PostgresDataType(oid: 17)
    /// `int8` (OID 20).
    public static let int8 = PostgresDataType(oid: 20)
    /// `int2` (OID 21).
    public static let int2 = PostgresDataType(oid: 21)
    /// `int4` (OID 23).
    public static let int4 = PostgresDataType(oid: 23)
    /// `text` (OID 25).
    public static let text = PostgresDataType(oid: 25)
    /// `oid` (OID 26).
    public static let oidType = PostgresDataType(oid: 26)
    /// `json` (OID 114).
    public static let json = PostgresDataType(oid: 114)
    /// `float4` (OID 700).
    public static let float4 = PostgresDataType(oid: 700)
    /// `float8` (OID 701).
    public static let float8 = PostgresDataType(oid: 701)
    /// `bpchar` (OID 1042).
    public static let bpchar = PostgresDataType(oid: 1042)
    /// `varchar` (OID 1043).
    public static let varchar = PostgresDataType(oid: 1043)
    /// `date` (OID 1082).
    public static let date = PostgresDataType(oid: 1082)
    /// `timestamp` (OID 1114).
    public static let timestamp = PostgresDataType(oid: 1114)
    /// `timestamptz` (OID 1184).
    public static let timestamptz = PostgresDataType(oid: 1184)
    /// `numeric` (OID 1700).
    public static let numeric = PostgresDataType(oid: 1700)
    /// `uuid` (OID 2950).
    public static let uuid = PostgresDataType(oid: 2950)
    /// `jsonb` (OID 3802).
    public static let jsonb = PostgresDataType(oid: 3802)
    /// `name` (OID 19).
    public static let name = PostgresDataType(oid: 19)
    /// `int2[]` (OID 1005).
    public static let int2Array = PostgresDataType(oid: 1005)
    /// `int4[]` (OID 1007).
    public static let int4Array = PostgresDataType(oid: 1007)
    /// `text[]` (OID 1009).
    public static let textArray = PostgresDataType(oid: 1009)
    /// `varchar[]` (OID 1015).
    public static let varcharArray = PostgresDataType(oid: 1015)
    /// `int8[]` (OID 1016).
    public static let int8Array = PostgresDataType(oid: 1016)

    /// Whether values of this type are text-like (any string decodes them unchanged).
    var isTextual: Bool {
        self == .text || self == .varchar || self == .bpchar || self == .name || self == .unspecified
    }

    /// The type's name for the common types, else `oid N`.
    public var description: String {
        switch oid {
        case 16: "bool"
        case 17: "bytea"
        case 19: "name"
        case 20: "int8"
        case 21: "int2"
        case 23: "int4"
        case 25: "text"
        case 114: "json"
        case 700: "float4"
        case 701: "float8"
        case 1042: "bpchar"
        case 1043: "varchar"
        case 1082: "date"
        case 1114: "timestamp"
        case 1184: "timestamptz"
        case 1700: "numeric"
        case 2950: "uuid"
        case 3802: "jsonb"
        case 1005: "int2[]"
        case 1007: "int4[]"
        case 1009: "text[]"
        case 1015: "varchar[]"
        case 1016: "int8[]"
        default: "oid \(oid)"
        }
    }
}

/// How a bound value travels: PostgreSQL's text form or its binary form.
public enum PostgresFormat: Int32, Sendable {
    /// The value's text representation (what `psql` shows).
    case text = 0
    /// The value's binary representation (used for `bytea`).
    case binary = 1
}
