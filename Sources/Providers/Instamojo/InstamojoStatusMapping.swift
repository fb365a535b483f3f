public import PaymentsCore
/// Instamojo statuses → unified statuses (docs/providers/instamojo.md §3 and §6). Undocumented
/// values are `.unknown(raw)` (needs reconciliation); no `default:`.
enum InstamojoStatusMapping {
    /// Payment request statuses (v1.1 docs; v2 examples show Pending and Completed) [M].
    enum PaymentRequest: String { case Pending, Sent, Failed, Completed }
    /// Gateway order statuses: only `pending`/`completed` are seen in samples [L];
    /// `failed` is what the sandbox uses.
    enum GatewayOrder: String { case pending, completed, failed }
    /// Case `resolution_status` (v2 reference, "Get details of a refund") [H].
    enum CaseResolution: String { case FINI_CONC, FINI_DENY, FINI_WITH, FINI_INIT }
    /// UPI collect `status_code`: 2 pending and 5 success are the Android SDK's
    /// constants; 6 (failed) is the sandbox's choice [L].
    enum UPICode: Int { case pending = 2, succeeded = 5, failed = 6 }

    static func paymentRequest(_ raw: String) -> OrderStatus {
        guard let status = PaymentRequest(rawValue: raw) else { return .unknown(raw) }
        switch status {
        case .Pending, .Sent: return .created
        // Email/SMS delivery failed: not a payment failure, the link still works.
        case .Failed: return .created
        // A payment was made; confirm with the payment's `status: true`.
        case .Completed: return .paid
        }
    }

    static func gatewayOrder(_ raw: String) -> OrderStatus {
        guard let status = GatewayOrder(rawValue: raw) else { return .unknown(raw) }
        switch status {
        case .pending: return .created
        case .completed: return .paid
        case .failed: return .failed
        }
    }

    /// `status: true | false | null` (docs.instamojo.com "get payment details") [H].
    static func payment(_ raw: Bool?) -> PaymentStatus {
        switch raw {
        case .some(true): .captured
        case .some(false): .failed
        case .none: .pending
        }
    }

    /// The create-refund answer documents only `Refunded` [H]; a third-party
    /// schema adds Pending/Processed/Rejected [L], so those stay unknown.
    enum CreatedRefund: String { case Refunded }

    static func refund(_ raw: String) -> RefundStatus {
        guard let status = CreatedRefund(rawValue: raw) else { return .unknown(raw) }
        switch status {
        case .Refunded: return .succeeded
        }
    }

    static func refundCase(resolution: String?) -> RefundStatus {
        guard let resolution else { return .pending }
        guard let status = CaseResolution(rawValue: resolution) else { return .unknown(resolution) }
        switch status {
        case .FINI_CONC: return .succeeded
        case .FINI_DENY: return .failed
        case .FINI_WITH: return .cancelled
        // "Case closed" without a refund.
        case .FINI_INIT: return .cancelled
        }
    }

    static func upi(_ code: Int) -> PaymentStatus {
        guard let status = UPICode(rawValue: code) else { return .unknown(String(code)) }
        switch status {
        case .pending: return .pending
        case .succeeded: return .captured
        case .failed: return .failed
        }
    }
}
