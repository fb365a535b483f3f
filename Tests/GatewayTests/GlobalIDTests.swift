import Crypto
import Foundation
@testable import Gateway
import Testing

/// Global ids: base64url of `Type:uuid`, written without Foundation's formatting, read back exactly.
@Suite struct GlobalIDTests {
    /// The same text through the general-purpose encoder (the reference).
    static func reference(_ type: NodeType, _ uuid: UUID) -> String {
        let standard = Encoding.base64(Array("\(type.rawValue):\(uuid.uuidString.lowercased())".utf8))
        return String(standard.compactMap { $0 == "=" ? nil : $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    @Test func writesWhatTheReferenceWritesAndReadsItBack() {
        for _ in 0..<2_000 {
            let uuid = UUID()
            for type in NodeType.allCases {
                let id = GlobalID(type, uuid)
                #expect(id.description == Self.reference(type, uuid))
                #expect(GlobalID(id.description) == id)
                #expect(GlobalID(id.description, of: type) == id)
            }
        }
        #expect(GlobalID(.order, UUID(uuid: UUID.zero)).description == "T3JkZXI6MDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMDAw")
    }

    @Test func refusesWhatItDidNotWrite() {
        for text in ["", "T3JkZXI6bm9wZQ", "not base64!", String(repeating: "A", count: 200), "Q3VzdG9tZXI6"] {
            #expect(GlobalID(text) == nil, "\(text)")
        }
        let order = GlobalID(.order, UUID())
        #expect(GlobalID(order.description, of: .customer) == nil)
    }
}
