import Support

/// The custom-UI pieces the mobile SDK drives (seed 002): the netbanking and wallet form
/// posts (`submission_url`s of `checkout-options`), and the control of a UPI collect's
/// outcome (approved, declined, dropped by the payer, expired).
///
/// Unsure: none of this is in the v2 reference. The form fields follow the iOS SDK
/// (`access_token=…&bank_code=…`, `access_token=…&wallet_id=…`); the sandbox also accepts
/// the form without `access_token` (the order id in the URL names the order, as for the
/// other SDK endpoints), and checks a token only when one is sent. What Instamojo answers
/// to the post is not documented: here a page standing for the bank's, with the payment
/// left pending until the control API finishes it.
extension InstamojoSimulator {
    /// `POST …/gateway/orders/{id}/netbanking/` (`bank_code`) or `…/wallet/` (`wallet_id`).
    func redirectSubmission(_ orderID: String, kind: String, _ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        var f = InstamojoFields(request.formOrJSON() ?? WireObject())
        let field = kind == "netbanking" ? "bank_code" : "wallet_id"
        guard let code = f.required(field, max: 64) else { return f.errors.response }
        if let token = f.text("access_token") {
            let live = state.withLock { $0.tokens[token].map { $0 > context.now } ?? false }
            guard live else { return Self.message("Invalid token.", status: 401) }
        }
        let known = kind == "netbanking" ? Self.netbankingBanks.map(\.0) : Self.wallets.map(\.0)
        guard known.contains(code) else {
            var errors = FieldErrors()
            errors.add(field, "\"\(code)\" is not a valid choice.")
            return errors.response
        }
        return state.withLock { state in
            let payment: Instamojo.Payment
            switch state.startPayment(orderID: orderID, instrument: kind == "netbanking" ? "NETBANKING" : "WALLET", vpa: nil, context: context) {
            case .success(let started): payment = started
            case .failure(let refusal): return refusal.response
            }
            let page = "<html><body><h1>Sandbox \(kind == "netbanking" ? "bank" : "wallet"): \(code)</h1>"
                + "<p>Payment \(payment.id) of order \(orderID) is pending. Finish it with "
                + "POST /_sandbox/instamojo/orders/\(orderID)/complete.</p></body></html>"
            return SandboxResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(page.utf8))
        }
    }

    /// `GET /_sandbox/instamojo/collects/{payment_id}`: the collect as the sandbox keeps it,
    /// with the number of status checks it answered.
    func inspectCollect(paymentID: String) -> WireObject? {
        state.withLock { state in
            guard let payment = state.payments[paymentID], let vpa = payment.vpa else { return nil }
            return ["payment_id": .string(payment.id), "order_id": .string(payment.orderID), "vpa": .string(vpa),
                    "status": payment.status.map { .bool($0) } ?? .null, "status_checks": .int(Int64(payment.statusChecks)),
                    "failure": payment.failure.map { .object(["reason": .string($0.reason), "message": .string($0.message)]) } ?? .null]
        }
    }

    /// The outcomes of a collect: the payer approves (`paid`), declines (`declined`), leaves
    /// without answering (`user_dropped`), or lets it lapse at the PSP (`expired`).
    static let collectOutcomes: [String: (reason: String, message: String)?] = [
        "paid": nil,
        "declined": ("PAYER_DECLINED", "The payer declined the collect request"),
        "user_dropped": ("USER_DROPPED", "The payer left without approving the collect request"),
        "expired": ("COLLECT_EXPIRED", "The collect request expired before the payer approved it"),
    ]

    /// `POST /_sandbox/instamojo/collects/{payment_id}/complete` with `{"status": …}`. A paid
    /// collect completes the order (webhook `Credit`); the other outcomes fail the payment
    /// (status code 6, webhook `Failed`) and leave the order open for another attempt.
    func completeCollect(paymentID: String, body: WireObject, context: SimulatorContext) -> ControlOutcome {
        let outcome = body["status"]?.stringValue ?? ""
        guard let failure = Self.collectOutcomes[outcome] else {
            return .refused(status: 400, message: "instamojo: collect \"status\" must be paid, declined, user_dropped or expired")
        }
        return state.withLock { state -> ControlOutcome in
            guard var payment = state.payments[paymentID], payment.vpa != nil, let orderID = payment.orderID,
                  var order = state.orders[orderID] else {
                return .refused(status: 404, message: "instamojo: no UPI collect \(paymentID)")
            }
            guard payment.status == nil else { return .refused(status: 409, message: "instamojo: collect \(paymentID) is already final") }
            payment.status = failure == nil
            payment.failure = failure
            payment.updatedAt = context.nowMilliseconds
            state.payments[paymentID] = payment
            var paymentRequest = order.paymentRequestID.flatMap { state.paymentRequests[$0] }
            if failure == nil {
                order.status = "completed"
                state.orders[orderID] = order
                if var request = paymentRequest {
                    request.payments.append(paymentID)
                    request.status = "Completed"
                    request.modifiedAt = context.nowMilliseconds
                    state.paymentRequests[request.id] = request
                    paymentRequest = request
                }
            }
            let webhook = webhookMessage(payment: payment, paymentRequest: paymentRequest, order: order, context)
            return .done(["provider": "instamojo", "order": order.wire(root: context.rootURL),
                          "payment": payment.wire(root: context.rootURL)], [webhook])
        }
    }
}
