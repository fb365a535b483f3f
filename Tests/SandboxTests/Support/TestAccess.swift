@testable import Sandbox

/// The few internals the HTTP tests reuse (each is checked against the vectors in SandboxPartsTests).
enum SandboxTestAccess {
    static func instamojoMAC(fields: [(String, String)], salt: String) -> String {
        InstamojoMAC.compute(fields: fields, salt: salt)
    }
}
