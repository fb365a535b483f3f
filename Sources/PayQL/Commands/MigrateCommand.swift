/// `payql migrate`: lands with its issue.
enum MigrateCommand {
    static func run(_ arguments: [String]) async throws -> Int32 {
        printError("payql migrate: not available in this build yet")
        return 2
    }
}
