import Foundation
import Gateway

/// The data key that seals TPV account numbers at rest: `PAYQL_DATA_KEY` (32 bytes, standard
/// Base64; environment only), plus rotated-out keys in `PAYQL_DATA_KEYS_PREVIOUS` (comma-separated)
/// that still open what they sealed. Without `PAYQL_DATA_KEY`, a development key is generated once
/// into `<dir>/data-key` (mode 0600) and reused on later starts; an unreadable file stops the start
/// rather than being replaced.
enum DataKeyFile {
    /// What was configured, and the one line to log about it (never the key itself).
    struct Loaded {
        var keyring: DataKeyring
        var source: String
        var path: String?
    }

    static func load(options: Options, directory: String) throws -> Loaded {
        var previous: [DataKey] = []
        if let list = try options.secret("data-keys-previous") {
            for item in list.split(separator: ",") where !item.trimmingCharacters(in: .whitespaces).isEmpty {
                do { previous.append(try DataKey(base64: String(item))) } catch {
                    throw UsageError("PAYQL_DATA_KEYS_PREVIOUS: \(error)")
                }
            }
        }
        if let text = try options.secret("data-key") {
            let key: DataKey
            do { key = try DataKey(base64: text) } catch { throw UsageError("PAYQL_DATA_KEY: \(error)") }
            return Loaded(keyring: try keyring(key, previous), source: "PAYQL_DATA_KEY", path: nil)
        }
        let path = directory + "/data-key"
        if FileManager.default.fileExists(atPath: path) {
            // Never replaced: a new key would make every account sealed with this one unreadable.
            guard let existing = try? String(contentsOfFile: path, encoding: .utf8),
                  let line = existing.split(separator: "\n").first(where: { $0.hasPrefix("PAYQL_DATA_KEY=") }) else {
                throw UsageError("\(path) exists but holds no readable PAYQL_DATA_KEY= line; fix or restore it (it is never regenerated)")
            }
            let key: DataKey
            do { key = try DataKey(base64: String(line.dropFirst("PAYQL_DATA_KEY=".count))) } catch { throw UsageError("\(path): \(error)") }
            return Loaded(keyring: try keyring(key, previous), source: "development key file", path: path)
        }
        let key = try DataKey.generate()
        try DevKeys.write("""
            # PayQL development data key (AES-256-GCM for TPV account numbers). Production: set PAYQL_DATA_KEY.
            # Losing this file makes the stored account numbers unreadable.
            PAYQL_DATA_KEY=\(key.base64Encoded())

            """, to: path, directory: directory)
        return Loaded(keyring: try keyring(key, previous), source: "generated development key file", path: path)
    }

    private static func keyring(_ current: DataKey, _ previous: [DataKey]) throws -> DataKeyring {
        do { return try DataKeyring(current: current, previous: previous) } catch { throw UsageError("data keys: \(error)") }
    }
}
