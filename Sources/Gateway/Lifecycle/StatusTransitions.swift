/// The order and payment status rules (API README decision 10), as pure functions:
/// statuses only move forward, PAID is absorbing, a payment confirmed after a
/// final failure moves the order to PAID (a late payment).
enum StatusTransitions {
    /// The order status after `proposed` arrives for an order at `current`; nil when it stays.
    static func order(from current: OrderStatusName, to proposed: OrderStatusName) -> OrderStatusName? {
        if current == proposed || current == .paid { return nil }
        switch (current.isFinal, proposed.isFinal) {
        case (false, false):
            return rank(proposed) > rank(current) ? proposed : nil
        case (false, true):
            return proposed
        case (true, _):
            // FAILED, EXPIRED or CANCELLED: only a confirmed payment moves it (LATE_PAYMENT).
            return proposed == .paid ? .paid : nil
        }
    }

    /// Whether `order(from:to:)` moving to PAID from a final status is a late payment.
    static func isLatePayment(from current: OrderStatusName, to next: OrderStatusName) -> Bool {
        next == .paid && current.isFinal && current != .paid
    }

    private static func rank(_ status: OrderStatusName) -> Int {
        switch status {
        case .created: 0
        case .attempted: 1
        case .pending: 2
        case .paid, .failed, .expired, .cancelled: 3
        }
    }

    /// The payment status after `proposed` arrives for a payment at `current`; nil when it stays.
    /// FAILED may still become AUTHORIZED or CAPTURED (Razorpay's failed → captured); CAPTURED
    /// moves only to refund states; REFUNDED is absorbing.
    static func payment(from current: String, to proposed: String) -> String? {
        guard current != proposed else { return nil }
        let from = paymentRank(current)
        let to = paymentRank(proposed)
        return to > from ? proposed : nil
    }

    private static func paymentRank(_ status: String) -> Int {
        switch status {
        case "CREATED": 0
        case "PENDING": 1
        case "FAILED", "CANCELLED": 2
        case "AUTHORIZED": 3
        case "CAPTURED": 4
        case "PARTIALLY_REFUNDED": 5
        case "REFUNDED": 6
        default: -1
        }
    }

    /// A payment status that counts as money received.
    static func isCaptured(_ status: String) -> Bool {
        status == "CAPTURED" || status == "PARTIALLY_REFUNDED" || status == "REFUNDED"
    }
}
