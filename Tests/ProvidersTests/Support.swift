import Foundation
import Testing
@testable import Providers
import PaymentsCore

/// Reads the test fixtures in Fixtures/ (provider samples and signature vectors, see docs/providers/*.md).
enum Fixture {
    static func url(_ path: String) throws -> URL {
        let root = try #require(Bundle.module.resourceURL, "test bundle has no resources")
        return root.appendingPathComponent("Fixtures").appendingPathComponent(path)
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url(path)))
    }

    static func sample(_ provider: String, _ name: String) throws -> [UInt8] {
        try bytes("samples/\(provider)/\(name).json")
    }

    static func decode<T: Decodable>(_ type: T.Type, _ provider: String, _ name: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(try sample(provider, name)))
    }
}

extension Amount {
    static func inr(_ paise: Int64) -> Amount { Amount(minorUnits: paise, currency: .inr) }
}
