/// `payql graphql`: lands with its issue.
enum GraphQLCommand {
    static func run(_ arguments: [String]) async throws -> Int32 {
        printError("payql graphql: not available in this build yet")
        return 2
    }
}
