import Foundation
import Postgres
import Testing

/// The embedded cluster's life cycle beyond what every other test already exercises.
@Suite struct EmbeddedPostgresTests {
    @Test func startingTwiceSharesTheRunningServerAndOnlyTheLastUserStopsIt() async throws {
        let cluster = try await TestDatabase.cluster()
        var configuration = cluster.configuration
        configuration.dataDirectory = cluster.dataDirectory
        let second = try await EmbeddedPostgres.start(configuration)
        #expect(!second.startedHere)
        #expect(second.port == cluster.port)
        #expect(second.socketDirectory == cluster.socketDirectory)
        try await second.stop()  // the first instance still uses it: the server stays up
        let connection = try await PostgresConnection.connect(configuration: second.postgresConfiguration())
        defer { connection.close() }
        #expect(try await connection.query("SELECT current_database()::text").single(String.self) == "payql")
        // Socket only: the server listens on no TCP address.
        #expect(try await connection.query("SHOW listen_addresses").single(String.self) == "")
    }

    @Test func missingBinariesGiveAClearError() async throws {
        var configuration = EmbeddedPostgresConfiguration()
        configuration.binDirectory = "/nonexistent/payql/bin"
        configuration.dataDirectory = TestDatabase.processDirectory + "/never"
        let error = await #expect(throws: PostgresError.self) { try await EmbeddedPostgres.start(configuration) }
        #expect(error?.code == .embeddedClusterFailed)
        #expect(error?.message.contains("initdb") == true)
    }

    @Test func unsafeServerSettingsAreRefused() async throws {
        var configuration = EmbeddedPostgresConfiguration()
        configuration.serverSettings = ["log_line_prefix": "x'; rm -rf /"]
        let error = await #expect(throws: PostgresError.self) { try await EmbeddedPostgres.start(configuration) }
        #expect(error?.code == .invalidInput)
    }
}
