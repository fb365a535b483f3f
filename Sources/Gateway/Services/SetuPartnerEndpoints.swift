import Crypto
import Foundation
import PaymentsCore
import Postgres
import Providers
import Support

/// The endpoints Setu calls on PayQL (flow F24, setu.md §5): `POST /setu/v1/getPaymentStatus`
/// and `POST /setu/v1/refund`, authenticated by `X-SETU-BILLPAY-API-KEY`
/// (`PAYQL_SETU_BILLPAY_API_KEY`). Requests and answers are read and written by the adapter's
/// ``SetuPartnerAPI``. `getPaymentLink` (Setu's web flow) is not served.
struct SetuPartnerEndpoints: Sendable {
    let store: BillPayStore
    let refunds: RefundService
    let providers: ProviderRegistry

    /// An HTTP answer: status and JSON body.
    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
    }

    /// Answers `POST /setu/v1/{call}`.
    func handle(call: String, headers: [(name: String, value: String)], body: [UInt8]) async throws -> Answer {
        guard let key = providers.setuBillPayAPIKey else { return Self.error(404, "Setu partner endpoints are not configured") }
        guard SetuPartnerAPI.authenticate(WebhookRequest(headers: headers, body: body), key: key).isValid else {
            return Self.error(401, "invalid \(SetuPartnerAPI.apiKeyHeader)")
        }
        // No order id, transaction id or amount PayQL keeps can hold a NUL (PostgreSQL stores none): refused as bad
        // input instead of failing in the driver at every retry.
        guard NULReplacement.replaced(in: body, form: false) == nil else { return Self.error(400, "a value holds a NUL character") }
        switch call {
        case "getPaymentStatus": return try await paymentStatus(body)
        case "refund": return try await refund(body)
        default: return Self.error(404, "no such Setu partner endpoint")
        }
    }

    /// `{"orderId"}` → the payment-event PayQL holds for the Setu order (`invalid-order-id` when there is none yet).
    private func paymentStatus(_ body: [UInt8]) async throws -> Answer {
        let orderID: String
        do { orderID = try SetuPartnerAPI.paymentStatusRequest(body) } catch { return Self.error(400, error.message) }
        guard let bill = try await store.payment(setuOrderID: orderID),
              let confirmation = try await store.confirmations(billPaymentIDs: [bill.id])[bill.id] else {
            return Answer(status: 200, body: try SetuPartnerAPI.paymentStatusResponse(nil))
        }
        return Answer(status: 200, body: try SetuPartnerAPI.paymentStatusResponse(Self.event(confirmation, bill: bill)))
    }

    /// The confirmation as Setu's payment-event.
    static func event(_ confirmation: BillConfirmationRecord, bill: BillPaymentRecord) -> SetuPaymentConfirmation {
        SetuPaymentConfirmation(
            orderID: bill.setuOrderID, transactionID: confirmation.transactionID, paidAt: confirmation.paidAt.microsecondsSinceEpoch / 1_000_000,
            amount: confirmation.amount, mode: SetuPaymentMode(rawValue: confirmation.paymentMode) ?? .upi,
            outcome: confirmation.outcome == "SUCCESS" ? .success
                : .failure(code: confirmation.failureCode ?? "PAYMENT_FAILED", message: confirmation.failureMessage ?? "the payment failed"),
            remarks: confirmation.bankReference.map { "UTR/RRN \($0)" })
    }

    /// `{orderId, amount, transactionId}` → a refund of the payment that paid the bill, through the provider that
    /// collected it (`initiatedBy: SETU`). Idempotent: the same request answers the same refund id (its reference,
    /// derived from the request), without refunding twice.
    private func refund(_ body: [UInt8]) async throws -> Answer {
        let request: SetuPartnerAPI.RefundRequest
        do { request = try SetuPartnerAPI.refundRequest(body) } catch { return Self.error(400, error.message) }
        guard let bill = try await store.payment(setuOrderID: request.orderID),
              let confirmation = try await store.confirmations(billPaymentIDs: [bill.id])[bill.id],
              confirmation.outcome == "SUCCESS", confirmation.transactionID == request.transactionID, let paymentID = confirmation.paymentID else {
            return Answer(status: 200, body: SetuPartnerAPI.refundResponse(request, refundID: nil, failureReason: "no successful payment \(request.transactionID) for order \(request.orderID)"))
        }
        guard request.amount.minorUnits > 0, request.amount.minorUnits <= bill.amount.minorUnits else {
            return Answer(status: 200, body: SetuPartnerAPI.refundResponse(request, refundID: nil, failureReason: "amount must be more than 0 and at most the bill amount"))
        }
        let digest = Crypto.hash(.sha256, Array("\(request.orderID)|\(request.transactionID)|\(request.amount.minorUnits)".utf8))
        let reference = "setu_" + Encoding.hex(digest).prefix(30)
        if try await store.pool.query("SELECT 1 FROM refunds WHERE reference = \(reference)").single(Int32.self) != nil {
            return Answer(status: 200, body: SetuPartnerAPI.refundResponse(request, refundID: reference))
        }
        let context = GatewayRequestContext(principal: Principal(apiKeyID: UUID(uuid: UUID.zero), scopes: [.ops], session: nil), idempotencyHeader: nil)
        do {
            let created = try await refunds.create(RefundService.CreateRequest(
                paymentID: paymentID, amountMinor: request.amount.minorUnits, currency: "INR", reason: "BILL_PAYMENT_FAILED",
                note: "Refund asked by Setu", speed: "NORMAL", reference: reference, initiatedBy: "SETU"), context: context)
            if created.refund.status == "FAILED" {
                return Answer(status: 200, body: SetuPartnerAPI.refundResponse(request, refundID: nil, failureReason: created.refund.failureReason ?? "the provider refused the refund"))
            }
            return Answer(status: 200, body: SetuPartnerAPI.refundResponse(request, refundID: reference))
        } catch let error as UserError {
            return Answer(status: 200, body: SetuPartnerAPI.refundResponse(request, refundID: nil, failureReason: error.message))
        }
    }

    private static func error(_ status: Int, _ message: String) -> Answer {
        let escaped = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return Answer(status: status, body: Array("{\"status\":\"failure\",\"message\":\"\(escaped)\"}".utf8))
    }
}
