public import PaymentsCore
/// Cashfree statuses → unified statuses (docs/providers/cashfree.md §3 and §7). Undocumented
/// values become `.unknown(raw)` (needs reconciliation); no `default:`.
enum CashfreeStatusMapping {
    enum Order: String { case ACTIVE, PAID, EXPIRED, TERMINATED, TERMINATION_REQUESTED }
    enum Payment: String { case SUCCESS, NOT_ATTEMPTED, FAILED, USER_DROPPED, VOID, CANCELLED, PENDING }
    // FAILED is listed only in the SDK's description text, not its validator [H].
    enum Refund: String { case SUCCESS, PENDING, ONHOLD, CANCELLED, FAILED }

    static func order(_ raw: String) -> OrderStatus {
        guard let status = Order(rawValue: raw) else { return .unknown(raw) }
        switch status {
        // No successful payment yet; attempts may have failed. Cashfree does not
        // say whether one was attempted, so this is CREATED, not ATTEMPTED.
        case .ACTIVE: return .created
        // "PAID means paid": the documented success condition.
        case .PAID: return .paid
        case .EXPIRED: return .expired
        case .TERMINATED: return .cancelled
        // Termination in progress; the reference maps it to cancelled [M].
        case .TERMINATION_REQUESTED: return .cancelled
        }
    }

    static func payment(_ raw: String) -> PaymentStatus {
        guard let status = Payment(rawValue: raw) else { return .unknown(raw) }
        switch status {
        case .SUCCESS: return .captured
        case .PENDING, .NOT_ATTEMPTED: return .pending
        case .FAILED: return .failed
        // The customer left the flow: nothing was taken.
        case .USER_DROPPED: return .cancelled
        case .CANCELLED: return .cancelled
        // An authorisation that was voided: nothing was taken.
        case .VOID: return .cancelled
        }
    }

    static func refund(_ raw: String) -> RefundStatus {
        guard let status = Refund(rawValue: raw) else { return .unknown(raw) }
        switch status {
        case .SUCCESS: return .succeeded
        case .PENDING, .ONHOLD: return .pending
        case .CANCELLED: return .cancelled
        case .FAILED: return .failed
        }
    }
}
