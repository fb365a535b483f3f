/// `payql webhook`: lands with its issue.
enum WebhookCommand {
    static func run(_ arguments: [String]) async throws -> Int32 {
        printError("payql webhook: not available in this build yet")
        return 2
    }
}
