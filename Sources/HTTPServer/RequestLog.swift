#if canImport(Glibc)
import Glibc
#endif
import JSON

/// Severity of a log line, ordered.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

    /// The level's name as written in logs and accepted by `--log-level`.
    public var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }

    /// Parses a level name (`debug`, `info`, `warning`/`warn`, `error`).
    public init?(name: String) {
        switch name.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What the server records about one finished request. No bodies, no headers.
public struct RequestLogRecord: Sendable {
    /// The request id (also the `x-request-id` response header).
    public var requestID: String
    /// Method as sent.
    public var method: String
    /// Path without query (the query can carry user data, so it is not logged).
    public var path: String
    /// Status sent, or 0 when no response was sent (see `outcome`).
    public var status: Int
    /// Time from the request's headers to its completion, in microseconds.
    public var durationMicroseconds: Int64
    /// `ok`, or why the request ended without a normal response:
    /// `timeout`, `client_closed`, `dropped`, `shutdown`, `error`.
    public var outcome: String
    /// The client's address.
    public var remoteAddress: String
    /// Handler-supplied fields (`HTTPResponse.logFields`), e.g. `operation`.
    public var fields: [(name: String, value: String)]

    /// `error` for 5xx and abnormal endings, `warning` for 4xx, else `info`.
    public var level: LogLevel {
        if status >= 500 || (outcome != "ok" && outcome != "dropped") { return .error }
        if status >= 400 { return .warning }
        return .info
    }
}

/// Receives one record per request. Called on server threads: must not block long.
public protocol RequestLogger: Sendable {
    /// Records one finished request.
    func log(_ record: RequestLogRecord)
}

/// Writes each record as one JSON object per line to a file descriptor.
///
/// `{"ts":"2026-11-29T21:30:00.123Z","level":"info","msg":"request","request_id":...,
/// "method":"POST","path":"/graphql","status":200,"duration_ms":0.42,"outcome":"ok",
/// "remote":"127.0.0.1","operation":"Q"}`. One `write(2)` per line, so lines from
/// several threads never interleave.
public struct JSONLineLogger: RequestLogger {
    /// Where lines go (1 = standard output, 2 = standard error).
    public let fileDescriptor: Int32
    /// Records below this level are skipped.
    public let minimumLevel: LogLevel

    /// A logger writing to `fileDescriptor` records at `minimumLevel` or above.
    public init(fileDescriptor: Int32 = 1, minimumLevel: LogLevel = .info) {
        self.fileDescriptor = fileDescriptor
        self.minimumLevel = minimumLevel
    }

    public func log(_ record: RequestLogRecord) {
        guard record.level >= minimumLevel else { return }
        var line = Self.format(record)
        line.append(0x0A)
        line.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fileDescriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// The JSON line for `record`, without the newline.
    public static func format(_ record: RequestLogRecord) -> [UInt8] {
        var object = JSONObject(capacity: 11 + record.fields.count)
        object.append("ts", .string(timestamp()))
        object.append("level", .string(record.level.name))
        object.append("msg", "request")
        object.append("request_id", .string(record.requestID))
        object.append("method", .string(record.method))
        object.append("path", .string(record.path))
        object.append("status", .int(Int64(record.status)))
        object.append("duration_ms", .double(Double(record.durationMicroseconds) / 1000))
        object.append("outcome", .string(record.outcome))
        object.append("remote", .string(record.remoteAddress))
        for field in record.fields where object[field.name] == nil {
            object.append(field.name, .string(field.value))
        }
        return JSONWriter.write(.object(object))
    }

    /// RFC 3339 UTC time with milliseconds.
    static func timestamp() -> String {
        let now = SystemInfo.wallClock()
        var seconds = time_t(now.seconds)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(now.nanoseconds / 1_000_000), 3))Z"
    }
}
