enum PostgresBenchmark {
    static func run(_ arguments: [String]) async throws {
        print("payql-bench: the Postgres benchmark lands with its issue")
    }
}
