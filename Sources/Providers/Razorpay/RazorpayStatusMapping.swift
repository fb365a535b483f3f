public import PaymentsCore
/// Razorpay statuses → unified statuses (docs/providers/razorpay.md §3 and §6). Each raw
/// status is first read into the documented set; anything else is
/// `.unknown(raw)`, i.e. needs reconciliation. The switches have no default.
enum RazorpayStatusMapping {
    enum Order: String { case created, attempted, paid }
    enum Payment: String { case created, authorized, captured, refunded, failed }
    enum Refund: String { case pending, processed, failed }

    static func order(_ raw: String) -> OrderStatus {
        guard let status = Order(rawValue: raw) else { return .unknown(raw) }
        switch status {
        case .created: return .created
        // At least one attempt, none captured (stays here across failures).
        case .attempted: return .attempted
        // Terminal; stays `paid` even after refunds.
        case .paid: return .paid
        }
    }

    /// `refundStatus` is the payment's `refund_status` (`partial` / `full` / null).
    static func payment(_ raw: String, refundStatus: String?) -> PaymentStatus {
        guard let status = Payment(rawValue: raw) else { return .unknown(raw) }
        switch status {
        case .created: return .created
        case .authorized: return .authorized
        case .captured:
            switch refundStatus {
            case "partial": return .partiallyRefunded
            case "full": return .refunded
            default: return .captured
            }
        case .refunded: return .refunded
        // Not final if you rely on webhooks: a failed payment can later be captured (docs/providers/razorpay.md §3).
        case .failed: return .failed
        }
    }

    static func refund(_ raw: String) -> RefundStatus {
        guard let status = Refund(rawValue: raw) else { return .unknown(raw) }
        switch status {
        case .pending: return .pending
        case .processed: return .succeeded
        case .failed: return .failed
        }
    }
}
