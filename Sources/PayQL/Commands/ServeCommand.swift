/// `payql serve`: lands with its issue.
enum ServeCommand {
    static func run(_ arguments: [String]) async throws -> Int32 {
        printError("payql serve: not available in this build yet")
        return 2
    }
}
