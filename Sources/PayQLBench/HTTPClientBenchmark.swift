enum HTTPClientBenchmark {
    static func run(_ arguments: [String]) async throws {
        print("payql-bench: the HTTPClient benchmark lands with its issue")
    }
}
