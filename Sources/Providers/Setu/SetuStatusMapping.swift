public import PaymentsCore
/// Setu bill-pay events → unified payment statuses (docs/providers/setu.md §6 and §9).
/// Undocumented events are `.unknown(raw)`; no `default:`.
enum SetuStatusMapping {
    enum Event: String {
        case bill_fetch_success, bill_fetch_failure, bill_payment_success, bill_payment_failure
        case bill_collection_failure, bill_payment_refunded, dispute_raised, dispute_status_change
    }

    /// What a user event says about the bill payment; nil for events that are
    /// not about a payment (bill fetches, disputes).
    static func payment(event raw: String) -> PaymentStatus? {
        guard let event = Event(rawValue: raw) else { return .unknown(raw) }
        switch event {
        case .bill_fetch_success, .bill_fetch_failure, .dispute_raised, .dispute_status_change: return nil
        case .bill_payment_success: return .captured
        case .bill_payment_failure: return .failed
        // Money collected but the bill not confirmed: expect a refund.
        case .bill_collection_failure: return .failed
        case .bill_payment_refunded: return .refunded
        }
    }
}
