import Foundation
import GraphQL
import PaymentsCore
import Postgres
import Providers

/// `reprocessWebhookEvent` (OPS): applies a stored, authentic provider webhook again through the
/// intake's own path (``WebhookService/apply(_:body:eventRowID:on:)``), e.g. one that arrived before its
/// order existed (UNMATCHED) or failed. Statuses only move forward, so reprocessing an event whose
/// effect is already there changes nothing. REJECTED deliveries (bad signature) were never
/// authentic and their bodies are not kept: they cannot be reprocessed.
extension WebhookService {
    /// Re-applies the stored event `id` in one transaction (its row locked, so two reprocessings of
    /// one event serialise); returns it as it is now. Throws `UserError` NOT_FOUND / INVALID_STATE.
    func reprocess(eventID id: UUID) async throws -> WebhookEventRecord {
        let stored = try await pool.query("""
            SELECT provider, payload FROM webhook_events WHERE id = \(id)
            """).single((String, PostgresJSONB).self)
        guard let (providerName, payload) = stored else {
            let rejected = try await pool.query("SELECT EXISTS (SELECT 1 FROM webhook_rejections WHERE uuid = \(id))").single(Bool.self) ?? false
            if rejected {
                throw UserError(.invalidState, "a REJECTED delivery (its signature did not verify) cannot be reprocessed: it was never authentic and its body was not kept",
                                field: ["input", "webhookEventId"])
            }
            throw UserError(.notFound, "no such webhook event", field: ["input", "webhookEventId"])
        }
        guard let provider = ProviderName(rawValue: providerName) else { throw GatewayRequestError.internal("a webhook event row names an unknown provider") }
        // The stored payload is the body with personal data redacted; the fields an event is applied
        // by (order, payment and refund ids, statuses, amounts) are kept.
        let body = Self.storedBody(payload, provider: provider)
        let event: WebhookEvent
        do {
            event = try Webhooks.event(provider: provider, request: WebhookRequest(headers: [], body: body))
        } catch {
            throw UserError(.invalidState, "the stored payload cannot be read as a \(provider.graphQLName) event (\(error.message)); nothing was applied",
                            field: ["input", "webhookEventId"])
        }
        try await pool.withTransaction { connection in
            _ = try await connection.query("SELECT id FROM webhook_events WHERE id = \(id) FOR UPDATE")
            let outcome = try await Self.apply(event, body: body, eventRowID: id, on: connection)
            _ = try await connection.query("""
                UPDATE webhook_events SET outcome = \(outcome), processing_error = NULL, processed_at = now() WHERE id = \(id)
                """)
        }
        guard let record = try await WebhookEventStore(pool: pool).find(id: id) else { throw GatewayRequestError.internal("the webhook event disappeared") }
        return record
    }
}

extension WebhookEventResolvers {
    /// `Mutation.reprocessWebhookEvent`.
    static func registerReprocess(_ set: inout ResolverSet, services: GatewayServices) {
        let store = WebhookEventStore(pool: services.pool)
        MutationResolvers.mutation(&set, "reprocessWebhookEvent", services) { input, _ in
            let id = try input.requiredID("webhookEventId", of: .webhookEvent)
            let record = try await services.webhooks.reprocess(eventID: id)
            return MutationResolvers.MutationResult(members: ["webhookEvent": WebhookEventView(record: record)], ids: ["event": record.id])
        } replay: { ids in
            ["webhookEvent": try await ids.uuid("event").asyncMap { try await store.find(id: $0) }?.map(WebhookEventView.init)]
        }
    }
}
