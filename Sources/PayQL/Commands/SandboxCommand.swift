/// `payql sandbox`: lands with its issue.
enum SandboxCommand {
    static func run(_ arguments: [String]) async throws -> Int32 {
        printError("payql sandbox: not available in this build yet")
        return 2
    }
}
