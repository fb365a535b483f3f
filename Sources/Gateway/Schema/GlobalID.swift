public import Foundation
import Support

/// The object types that have global IDs (`Node`), by GraphQL type name.
public enum NodeType: String, Sendable, CaseIterable {
    case customer = "Customer"
    case order = "Order"
    case payment = "Payment"
    case refund = "Refund"
    case bankAccount = "BankAccount"
    case linkedUpiAccount = "LinkedUpiAccount"
    case webhookEvent = "WebhookEvent"
    case clientSession = "ClientSession"
    case apiKey = "ApiKey"
    case rewardOffer = "RewardOffer"
    case reward = "Reward"
    case billPayLink = "BillPayLink"
    case billPayment = "BillPayment"
    case routingRule = "RoutingRule"
    case merchantWebhookDelivery = "MerchantWebhookDelivery"
    case upiCollect = "UpiCollect"
}

/// An opaque global ID: base64url (no padding) of `"<Type>:<uuid>"`.
///
/// Clients must not parse it; PayQL decodes it to check the type an argument
/// expects (`order(id:)` given a Customer's id resolves to null, a mutation
/// reports `NOT_FOUND` for the field).
public struct GlobalID: Sendable, Hashable, CustomStringConvertible {
    /// The object's type.
    public var type: NodeType
    /// The row's primary key.
    public var uuid: UUID

    /// The ID of the row `uuid` of `type`.
    public init(_ type: NodeType, _ uuid: UUID) {
        self.type = type
        self.uuid = uuid
    }

    /// Decodes `text`; nil for anything that is not an ID PayQL made (bounded: at most 100 characters).
    /// Read byte by byte, without Foundation's UUID parser (an `sscanf` per id).
    public init?(_ text: String) {
        guard text.utf8.count <= 100, let bytes = Base64URL.decode(text),
              let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
              let type = NodeType(rawValue: String(decoding: bytes[..<colon], as: UTF8.self)),
              let uuid = Self.uuid(bytes[(colon + 1)...]) else { return nil }
        self.type = type
        self.uuid = uuid
    }

    /// The UUID written 8-4-4-4-12 in hex digits of either case; nil for anything else.
    static func uuid(_ text: ArraySlice<UInt8>) -> UUID? {
        Hex.uuidBytes(text).map { UUID(uuid: $0) }
    }

    /// Decodes `text` and checks it names a `type`; nil otherwise.
    public init?(_ text: String, of type: NodeType) {
        guard let id = GlobalID(text), id.type == type else { return nil }
        self = id
    }

    /// The opaque text. Built byte by byte in a stack buffer, then encoded into the string's storage
    /// (one allocation: ids are written for every object a response holds).
    public var description: String {
        let prefix = type.rawValue.utf8
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefix.count + 37) { raw in
            var count = 0
            for byte in prefix {
                raw[count] = byte
                count += 1
            }
            raw[count] = UInt8(ascii: ":")
            count += 1
            withUnsafeBytes(of: uuid.uuid) { bytes in
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        raw[count] = UInt8(ascii: "-")
                        count += 1
                    }
                    raw[count] = Self.hexDigits[Int(byte >> 4)]
                    raw[count + 1] = Self.hexDigits[Int(byte & 0x0F)]
                    count += 2
                }
            }
            return Base64URL.encode(UnsafeBufferPointer(rebasing: raw[..<count]))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
