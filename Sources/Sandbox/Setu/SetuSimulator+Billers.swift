import Support

/// The sandbox's BBPS catalogue, payment-event refusals and delivery counts.
///
/// Setu refuses a link for a biller it does not know, or whose `billParams` names are not
/// the biller's display names (setu.md §4.1: "`name` must match the biller's field display
/// name"). The real catalogue is Setu's; the sandbox keeps a few billers so both answers
/// can be exercised. Error codes are the sandbox's own (Setu documents none for links).
extension SetuSimulator {
    /// A biller: its id, category and the display names of its identifiers.
    struct Biller: Sendable {
        let id: String
        let name: String
        let category: String
        let parameters: [String]
    }

    /// The sandbox billers (docs/sandbox.md, "Setu").
    static let billers: [Biller] = [
        Biller(id: "BBPSDUMMY001", name: "Sandbox Water Board", category: "Water", parameters: ["Consumer Number"]),
        Biller(id: "BESCOM000KAR01", name: "Sandbox Electricity", category: "Electricity", parameters: ["Customer ID"]),
        Biller(id: "AIRTELBB00NAT1", name: "Sandbox Broadband", category: "Broadband Postpaid", parameters: ["Landline Number", "STD Code"]),
        Biller(id: "LICOF0000NAT01", name: "Sandbox Insurance", category: "Insurance", parameters: ["Policy Number", "Date of Birth"]),
    ]

    /// Checks category, biller and parameter names against the catalogue; nil when they fit.
    static func catalogueProblem(category: String?, billerID: String?, parameters: Wire) -> SandboxResponse? {
        if let category, !billers.contains(where: { $0.category == category }) {
            return error("invalid-category", "Unknown categoryName '\(category)'")
        }
        guard let billerID else { return nil }
        guard let biller = billers.first(where: { $0.id == billerID }) else {
            return error("invalid-biller-id", "Unknown billerId '\(billerID)'")
        }
        if let category, biller.category != category {
            return error("invalid-biller-id", "Biller '\(billerID)' is not in category '\(category)'")
        }
        for item in parameters.arrayValue ?? [] {
            guard let name = item["name"]?.stringValue, biller.parameters.contains(name) else {
                return error("invalid-bill-params", "billParams names must be the biller's: \(biller.parameters.joined(separator: ", "))")
            }
        }
        return nil
    }

    /// What the next payment-events are answered with instead of an acknowledgement.
    struct PaymentEventRefusal: Sendable {
        /// The order it applies to; nil: any order.
        let orderID: String?
        /// HTTP status (4xx or 5xx).
        let status: Int
        /// Setu-shaped error code.
        let code: String
        /// How many deliveries are still refused.
        var remaining: Int
    }

    /// `POST /_sandbox/setu/payment-events/refuse` `{"status":500,"code":"…","times":1,"orderId":"COUWL…"?}`:
    /// the next `times` payment-events (of that order, or of any) get that error; then they are acknowledged again.
    func addRefusal(_ body: WireObject) -> SandboxResponse {
        let status = body["status"]?.numberText.flatMap { Int($0) } ?? 500
        guard (400...599).contains(status) else { return SandboxRouter.controlError(400, "setu: status must be 400–599") }
        let times = body["times"]?.numberText.flatMap { Int($0) } ?? 1
        guard times >= 1 else { return SandboxRouter.controlError(400, "setu: times must be at least 1") }
        let code = body["code"]?.stringValue ?? (status >= 500 ? "internal-server-error" : "invalid-request")
        let refusal = PaymentEventRefusal(orderID: body["orderId"]?.stringValue, status: status, code: code, remaining: times)
        state.withLock { $0.refusals.append(refusal) }
        return .json(.object(["status": .int(Int64(status)), "code": .string(code), "times": .int(Int64(times)),
                              "orderId": .string(refusal.orderID)]), status: 201)
    }

    /// Takes one refusal for `orderID`, if any is armed (called with the state locked).
    static func takeRefusal(_ state: inout State, orderID: String?) -> PaymentEventRefusal? {
        guard let index = state.refusals.firstIndex(where: { $0.orderID == nil || $0.orderID == orderID }) else { return nil }
        let refusal = state.refusals[index]
        state.refusals[index].remaining -= 1
        if state.refusals[index].remaining <= 0 { state.refusals.remove(at: index) }
        return refusal
    }

    private func refundEvents(_ order: Order) -> WireObject {
        var events = WireObject()
        for (refundID, status) in order.refundEvents.sorted(by: { $0.key < $1.key }) { events[refundID] = .string(status) }
        return events
    }

    /// `GET /_sandbox/setu/orders/{orderId}`: the order with its payment-event deliveries.
    func inspect(orderID: String) -> WireObject? {
        state.withLock { state in
            guard let order = state.orders[orderID] else { return nil }
            let deliveries = state.paymentEventDeliveries[orderID] ?? []
            return ["orderId": .string(order.orderID), "sessionId": .string(order.sessionID), "amount": .string(Money.twoDecimals(order.amount)),
                    "billStatus": .string(order.billStatus),
                    "paymentEvent": order.paymentEvent.map {
                        .object(["paymentStatus": .string($0.status), "transactionId": .string($0.transactionID),
                                 "paymentMode": .string($0.mode), "paymentDateTime": .string($0.dateTime)])
                    } ?? .null,
                    "paymentEventDeliveries": .int(Int64(deliveries.count)),
                    "paymentEventsAcknowledged": .int(Int64(deliveries.filter { $0 == 200 }.count)),
                    "paymentEventAnswers": .array(deliveries.map { .int(Int64($0)) }),
                    "refundEvents": .object(refundEvents(order))]
        }
    }
}
