import GraphQL
import JSON
import Postgres

/// `WebhookEvent`.
struct WebhookEventView: GraphQLFieldReadable, GraphQLTypeNamed {
    var record: WebhookEventRecord
    var graphQLTypeName: String { "WebhookEvent" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": GlobalID(.webhookEvent, record.id).description
        case "provider": record.provider.graphQLName
        case "eventId": record.eventID
        case "eventType": record.eventType
        case "receivedAt": record.receivedAt.rfc3339
        case "processedAt": record.processedAt?.rfc3339
        // A row still PROCESSING is one whose transaction has not committed: PENDING in the contract.
        case "outcome": record.outcome == "PROCESSING" ? "PENDING" : record.outcome
        case "error": record.error
        // GraphQL Int is 32-bit: a count beyond it is clamped.
        case "deliveries": Int(min(record.deliveries, Int64(Int32.max)))
        case "payload": record.payload.flatMap { try? JSONParser.parse($0.text) }
        default: nil
        }
    }
}
