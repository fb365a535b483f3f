import Crypto
import Foundation
import JSON
import Postgres

/// Idempotent mutations (the contract's header, "Idempotency"): the first call with
/// a (caller, key) pair does the work and records the ids of what it produced; a
/// repeat with the same input returns those objects as they are now; a repeat
/// with different input is refused; a concurrent repeat waits for the first.
/// The primary key (scope, key) decides who is first, so this holds across instances.
struct IdempotencyKeys: Sendable {
    let pool: PostgresPool
    /// How long a repeat waits for the first call before `IDEMPOTENCY_KEY_IN_USE`.
    var waitLimit: Duration = .seconds(10)
    /// How often a waiting repeat looks again.
    var pollInterval: Duration = .milliseconds(25)

    /// What `begin` decided.
    enum Start: Sendable {
        /// First call: do the work, then `complete` or `release`.
        case proceed
        /// Done before: rebuild the payload from these ids.
        case replay(JSONValue)
        /// Same key, different operation or input.
        case reused
        /// The first call is still running after the wait limit.
        case inUse
    }

    /// A key from the input or the `Idempotency-Key` header: 1–255 characters without control characters
    /// (PostgreSQL text cannot hold U+0000), equal if both are given.
    static func key(input: String?, header: String?) -> Result<String?, UserError> {
        if let input, let header, input != header {
            return .failure(UserError(.invalidParameterCombination, "idempotencyKey and the Idempotency-Key header differ",
                                      field: ["input", "idempotencyKey"]))
        }
        guard let key = input ?? header else { return .success(nil) }
        guard (1...255).contains(key.count) else {
            return .failure(UserError(.validationFailed, "idempotencyKey must be 1–255 characters", field: ["input", "idempotencyKey"]))
        }
        guard !key.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return .failure(UserError(.validationFailed, "idempotencyKey must not contain control characters", field: ["input", "idempotencyKey"]))
        }
        return .success(key)
    }

    /// SHA-256 (hex) of the operation's input without its idempotency key.
    static func requestHash(operation: String, input: JSONObject) -> String {
        var object = JSONObject()
        for (name, value) in input.members where name != "idempotencyKey" { object.append(name, value) }
        return Encoding.hex(Crypto.sha256(operation + "\n" + JSONWriter.string(.object(object))))
    }

    /// Claims (scope, key) for `operation` with `hash`, or says why not.
    func begin(scope: String, key: String, operation: String, hash: String) async throws -> Start {
        let deadline = ContinuousClock.now + waitLimit
        while true {
            let inserted = try await pool.query("""
                INSERT INTO idempotency_records (scope, key, operation, request_hash) VALUES (\(scope), \(key), \(operation), \(hash))
                ON CONFLICT (scope, key) DO NOTHING RETURNING 1
                """)
            if inserted.count == 1 { return .proceed }
            let existing = try await pool.query("""
                SELECT operation, request_hash, status, result_ids, expires_at < now() FROM idempotency_records
                WHERE scope = \(scope) AND key = \(key)
                """).single((String, String, String, PostgresJSONB?, Bool).self)
            guard let (storedOperation, storedHash, status, ids, expired) = existing else { continue }   // released meanwhile: try again
            if expired {
                _ = try await pool.query("DELETE FROM idempotency_records WHERE scope = \(scope) AND key = \(key) AND expires_at < now()")
                continue
            }
            guard storedOperation == operation, storedHash == hash else { return .reused }
            if status == "COMPLETED" {
                let parsed = ids.flatMap { try? JSONParser.parse($0.text) } ?? .null
                return .replay(parsed)
            }
            guard ContinuousClock.now < deadline else { return .inUse }
            try await Task.sleep(for: pollInterval)
        }
    }

    /// Records the ids the first call produced.
    /// Rides out a short database outage: the work is done and a retry must replay it.
    func complete(scope: String, key: String, resultIDs: JSONValue) async throws {
        _ = try await OutageRetry.run {
            try await pool.query("""
                UPDATE idempotency_records SET status = 'COMPLETED', result_ids = \(PostgresJSONB(text: JSONWriter.string(resultIDs))),
                    completed_at = now() WHERE scope = \(scope) AND key = \(key)
                """)
        }
    }

    /// Frees the key after a retryable failure or an error, so a retry does the work. Rides out a short
    /// database outage (the usual cause of the error): a key left IN_PROGRESS would refuse every retry.
    func release(scope: String, key: String) async {
        _ = try? await OutageRetry.run {
            try await pool.query("DELETE FROM idempotency_records WHERE scope = \(scope) AND key = \(key) AND status = 'IN_PROGRESS'")
        }
    }
}
