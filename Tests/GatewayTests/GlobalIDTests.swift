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

    @Test func base64URLReadsWhatTheGeneralDecoderReads() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=.!".utf8)
        for length in 0..<24 {
            for _ in 0..<200 {
                let text = String(decoding: (0..<length).map { _ in alphabet.randomElement() ?? 65 }, as: UTF8.self)
                var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
                while standard.utf8.count % 4 != 0 { standard += "=" }
                #expect(Base64URL.decode(text) == Encoding.bytes(base64: standard), "\(text)")
            }
        }
        let bytes = (0..<64).map { _ in UInt8.random(in: 0...255) }
        for count in 0...bytes.count { #expect(Base64URL.decode(Base64URL.encode(Array(bytes[..<count]))) == Array(bytes[..<count])) }
    }

    @Test func readsUUIDsOfEitherCaseAndNothingElse() {
        let uuid = UUID()
        for text in [uuid.uuidString.lowercased(), uuid.uuidString.uppercased()] {
            let id = Base64URL.encode(Array("Order:\(text)".utf8))
            #expect(GlobalID(id) == GlobalID(.order, uuid))
        }
        let good = uuid.uuidString.lowercased()
        let bad = [String(good.dropLast()), good + "0", good.replacingOccurrences(of: "-", with: "0"), "g" + good.dropFirst(),
                   String(good.prefix(8)) + "0" + good.dropFirst(9), " " + good.dropFirst()]
        for text in bad {
            #expect(GlobalID(Base64URL.encode(Array("Order:\(text)".utf8))) == nil, "\(text)")
        }
        #expect(GlobalID(Base64URL.encode(Array("Nope:\(good)".utf8))) == nil)
    }

    @Test func refusesWhatItDidNotWrite() {
        for text in ["", "T3JkZXI6bm9wZQ", "not base64!", String(repeating: "A", count: 200), "Q3VzdG9tZXI6"] {
            #expect(GlobalID(text) == nil, "\(text)")
        }
        let order = GlobalID(.order, UUID())
        #expect(GlobalID(order.description, of: .customer) == nil)
    }
}
