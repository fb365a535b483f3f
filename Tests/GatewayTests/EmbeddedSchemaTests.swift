import Foundation
import HTTPClient
import PaymentsCore
import Postgres
import Providers
@testable import Gateway
import Testing

/// The generated `EmbeddedSchema.swift` must match `schema/` (run `scripts/embed-schema.py` after editing either).
@Suite struct EmbeddedSchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func sdlIsCurrent() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("schema/payql.graphql"), encoding: .utf8)
        #expect(EmbeddedSchema.sdl == text, "schema/payql.graphql changed: run scripts/embed-schema.py")
    }

    @Test func migrationsAreCurrent() throws {
        let directory = Self.root.appendingPathComponent("schema/migrations")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(EmbeddedSchema.migrations.map(\.fileName) == names, "migrations added or removed: run scripts/embed-schema.py")
        for (name, sql) in EmbeddedSchema.migrations {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            #expect(sql == text, "\(name) changed: run scripts/embed-schema.py")
        }
    }
}
