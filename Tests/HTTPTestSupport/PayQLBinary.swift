// Shared by every test that runs the real `payql` executable.
public import Foundation

/// Where the `payql` executable built alongside the test bundle is
/// (`swift build --build-tests` builds it next to the tests).
public enum PayQLBinary {
    /// The executable's path, or nil when it is not built.
    public static var path: String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("payql")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// The message for a test that needs the executable and cannot find it.
    public static let missing = "payql is not built next to the tests (run swift build --build-tests)"
}
