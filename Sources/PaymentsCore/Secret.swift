/// A credential (API key secret, webhook secret, token) that must never be
/// printed. `description`, `debugDescription` and reflection all show `****`;
/// the value is reachable only through ``revealed`` at the point of use.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let value: String

    /// Wraps `value`.
    public init(_ value: String) { self.value = value }

    /// The secret itself, for building a header or a MAC. Do not log it.
    public var revealed: String { value }

    /// Whether the secret is the empty string (a configuration mistake).
    public var isEmpty: Bool { value.isEmpty }

    public var description: String { "****" }
    public var debugDescription: String { "Secret(****)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
