import Support

/// Links, the partner's payment and refund events, and the user's journey
/// (played by the control API) with Setu's user-event webhooks.
extension SetuSimulator {
    /// `POST /api/v2/ethereal/link`.
    func createLink(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        guard let object = request.jsonObject() else { return Self.error("invalid-request", "Body must be a JSON object") }
        guard let orgID = object["orgId"]?.stringValue, !orgID.isEmpty else {
            return Self.error("invalid-request", "orgId is required")
        }
        let mobile = object["mobileNumber"]?.stringValue
        if let mobile, !((6...22).contains(mobile.count) && mobile.allSatisfy(\.isASCIIDigit)) {
            return Self.error("invalid-mobile-number", "mobileNumber must be 6 to 22 digits")
        }
        if let value = object["mobileNumber"], value.stringValue == nil, !value.isNull {
            return Self.error("invalid-mobile-number", "mobileNumber must be a string of digits")
        }
        let billParams = object["billParams"] ?? .null
        if !billParams.isNull {
            guard let items = billParams.arrayValue, items.allSatisfy({
                $0["name"]?.stringValue != nil && $0["value"]?.stringValue != nil
            }) else {
                return Self.error("invalid-request", "billParams must be a list of {name, value} strings")
            }
            guard object["billerId"]?.stringValue != nil else {
                return Self.error("invalid-request", "billParams need billerId")
            }
        }
        if let redirect = object["redirectTo"]?.stringValue, redirect != "transactions", redirect != "disputes" {
            return Self.error("invalid-request", "redirectTo must be transactions or disputes")
        }
        let shortLink = object["shortLink"]?.stringValue
        if let shortLink, !(8...16).contains(shortLink.count) {
            return Self.error("invalid-request", "shortLink must be 8 to 16 characters")
        }
        if object["billerId"]?.stringValue != nil, object["categoryName"]?.stringValue == nil {
            return Self.error("invalid-request", "billerId needs categoryName")
        }
        if let problem = Self.catalogueProblem(category: object["categoryName"]?.stringValue, billerID: object["billerId"]?.stringValue,
                                               parameters: billParams) {
            return problem
        }
        let link = Link(sessionID: Identifiers.digits(16), orgID: orgID, mobileNumber: mobile,
                        customerID: object["custID"]?.stringValue, categoryName: object["categoryName"]?.stringValue,
                        billerID: object["billerId"]?.stringValue, billParams: billParams,
                        additionalInfo: object["additionalInfo"] ?? .null, createdAt: context.now)
        state.withLock { $0.links[link.sessionID] = link }
        var answer: WireObject = ["link": .string(context.rootURL + "/setu/billpay/" + link.sessionID),
                                  "sessionId": .string(link.sessionID)]
        if let shortLink { answer["shortLink"] = .string(context.rootURL + "/setu/s/" + shortLink) }
        answer["success"] = true
        answer["traceId"] = .string(Self.traceID())
        return .json(.object(answer))
    }

    /// `POST /api/v2/webhooks/payment-event`: the partner confirms (or reports failure of) the payment.
    func paymentEvent(_ request: SandboxRequest) -> SandboxResponse {
        let orderID = request.jsonObject()?["orderId"]?.stringValue
        let answer = state.withLock { state -> SandboxResponse? in
            guard let refusal = Self.takeRefusal(&state, orderID: orderID) else { return nil }
            return Self.error(refusal.code, "Refused by the sandbox (control API)", status: refusal.status)
        } ?? acknowledgePaymentEvent(request)
        if let orderID {
            state.withLock { $0.paymentEventDeliveries[orderID, default: []].append(answer.status) }
        }
        return answer
    }

    /// The payment-event checked and recorded (idempotent for the same SUCCESS).
    private func acknowledgePaymentEvent(_ request: SandboxRequest) -> SandboxResponse {
        guard let object = request.jsonObject() else { return Self.error("invalid-request", "Body must be a JSON object") }
        func text(_ key: String) -> String? { object[key]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
        guard let orderID = text("orderId") else { return Self.error("invalid-request", "orderId is required") }
        guard let transactionID = text("transactionId") else { return Self.error("invalid-request", "transactionId is required") }
        guard let dateTime = text("paymentDateTime"), Clock.isSpacedDateTime(dateTime) else {
            return Self.error("invalid-request", "paymentDateTime must be YYYY-MM-DD HH:MM:SS (UTC)")
        }
        guard let amountText = text("amount"), let amount = Money.paise(fromDecimal: amountText) else {
            return Self.error("invalid-request", "amount must be a decimal string, e.g. \"100.00\"")
        }
        guard let rawMode = text("paymentMode"), Self.paymentModes.contains(rawMode.uppercased()) else {
            return Self.error("invalid-request", "paymentMode must be one of \(Self.paymentModes.sorted().joined(separator: ", "))")
        }
        let mode = rawMode.uppercased()
        guard let status = text("paymentStatus"), status == "SUCCESS" || status == "FAILURE" else {
            return Self.error("invalid-request", "paymentStatus must be SUCCESS or FAILURE")
        }
        if let reason = object["failureReason"], !reason.isNull, reason.objectValue == nil {
            return Self.error("invalid-request", "failureReason must be {code, message}")
        }
        if let fee = object["custConvFee"], !fee.isNull, fee.numberText.flatMap({ Int64($0) }) == nil {
            return Self.error("invalid-request", "custConvFee must be an integer")
        }
        return state.withLock { state in
            guard var order = state.orders[orderID] else { return Self.error("invalid-order-id", "Unknown orderId") }
            guard amount == order.amount else {
                return Self.error("amount-mismatch", "amount does not match the order (\(Money.twoDecimals(order.amount)))")
            }
            guard order.allowedModes.isEmpty || order.allowedModes.contains(mode) else {
                return Self.error("invalid-payment-mode", "paymentMode is not among the order's allowedPaymentModes")
            }
            if let previous = order.paymentEvent, previous.status == "SUCCESS" {
                // Idempotent: the same confirmation again is acknowledged; a different one is refused.
                if status == "SUCCESS", previous.transactionID == transactionID {
                    return .json(.object(["status": "acknowledged"]))
                }
                return Self.error("order-already-paid", "A successful payment was already reported for this order")
            }
            order.paymentEvent = (status, transactionID, mode, dateTime)
            state.orders[orderID] = order
            return .json(.object(["status": "acknowledged"]))
        }
    }

    /// `POST /api/v2/webhooks/refund-event`.
    func refundEvent(_ request: SandboxRequest) -> SandboxResponse {
        guard let object = request.jsonObject() else { return Self.error("invalid-request", "Body must be a JSON object") }
        guard let orderID = object["orderId"]?.stringValue, let refundID = object["refundId"]?.stringValue, !refundID.isEmpty else {
            return Self.error("invalid-request", "orderId and refundId are required")
        }
        // The playground sends "SUCCESS", the docs "success": any case.
        guard let status = object["refundStatus"]?.stringValue?.lowercased(), status == "success" || status == "failure" else {
            return Self.error("invalid-request", "refundStatus must be success or failure")
        }
        guard let time = object["refundDateTime"]?.stringValue, Clock.isSpacedDateTime(time) else {
            return Self.error("invalid-request", "refundDateTime must be YYYY-MM-DD HH:MM:SS (UTC)")
        }
        return state.withLock { state in
            guard var order = state.orders[orderID] else { return Self.error("invalid-order-id", "Unknown orderId") }
            order.refundEvents[refundID] = status
            state.orders[orderID] = order
            return .json(.object(["status": "acknowledged"]))
        }
    }

    // MARK: Control

    /// `POST /_sandbox/setu/links/{sessionId}/initiate`: the user picked a bill and
    /// pressed pay; returns the `initiate_payment` data the webview posts to the app.
    func initiate(sessionID: String, body: WireObject, context: SimulatorContext) -> SandboxResponse {
        let amountText = body["amount"]?.stringValue ?? "100.00"
        guard let amount = Money.paise(fromDecimal: amountText), amount > 0 else {
            return SandboxRouter.controlError(400, "setu: amount must be a decimal string like \"100.00\"")
        }
        let modesText = body["allowedPaymentModes"]?.stringValue
        var modes: [String] = []
        for raw in (modesText ?? "").split(separator: ",") {
            let mode = raw.trimmingSpaces().uppercased()
            // The docs' example says NETBANKING, which is not a paymentMode: it means INTERNET BANKING.
            let mapped = mode == "NETBANKING" ? "INTERNET BANKING" : mode
            guard Self.paymentModes.contains(mapped) else {
                return SandboxRouter.controlError(400, "setu: unknown payment mode '\(raw)'")
            }
            modes.append(mapped)
        }
        return state.withLock { state in
            guard let link = state.links[sessionID] else { return SandboxRouter.controlError(404, "setu: no session \(sessionID)") }
            let order = Order(orderID: "COUWL" + Identifiers.base62(12), sessionID: sessionID, amount: amount,
                              allowedModes: modes, allowedModesText: modesText,
                              postPaymentURL: context.rootURL + "/setu/payment-callback/" + Identifiers.uuid(),
                              mobileNumber: link.mobileNumber ?? "9876543210", customerID: link.customerID,
                              setuTransactionID: "AXO" + Identifiers.digits(9), billID: Identifiers.uuid(),
                              refID: "CMA" + Identifiers.base62(32).uppercased())
            state.orders[order.orderID] = order
            var data: WireObject = ["orderId": .string(order.orderID), "amount": .string(Money.twoDecimals(amount)),
                                    "postPaymentUrl": .string(order.postPaymentURL),
                                    "customerMobileNumber": .string(order.mobileNumber)]
            if let customer = order.customerID { data["customerId"] = .string(customer) }
            if let modesText { data["allowedPaymentModes"] = .string(modesText) }
            return .json(.object(data))
        }
    }

    /// `paid` (needs a SUCCESS payment-event), `failed`, `collection_failure`, `refunded`.
    func complete(orderID: String, body: WireObject, context: SimulatorContext) -> ControlOutcome {
        guard let outcome = completionStatus(body), ["paid", "failed", "collection_failure", "refunded"].contains(outcome) else {
            return .refused(status: 400, message: "setu: \"status\" must be paid, failed, collection_failure or refunded")
        }
        return state.withLock { state -> ControlOutcome in
            guard var order = state.orders[orderID] else { return .refused(status: 404, message: "setu: no order \(orderID)") }
            guard let link = state.links[order.sessionID] else { return .refused(status: 404, message: "setu: no session") }
            if outcome == "paid", order.paymentEvent?.status != "SUCCESS" {
                return .refused(status: 409, message: "setu: no SUCCESS payment-event was received for \(orderID); Setu settles the bill only after the partner confirms the payment")
            }
            if outcome == "refunded", order.billStatus != "PAYMENT_SUCCESS" && order.billStatus != "COLLECTION_FAILURE" {
                return .refused(status: 409, message: "setu: only a paid or collection-failed bill can be refunded")
            }
            let (event, status) = switch outcome {
            case "paid": ("bill_payment_success", "PAYMENT_SUCCESS")
            case "failed": ("bill_payment_failure", "PAYMENT_FAILED")
            case "collection_failure": ("bill_collection_failure", "COLLECTION_FAILURE")
            default: ("bill_payment_refunded", "PAYMENT_REFUNDED")
            }
            order.billStatus = status
            state.orders[orderID] = order
            let webhook = userEvent(event: event, status: status, order: order, link: link, context)
            let summary: WireObject = ["orderId": .string(order.orderID), "sessionId": .string(order.sessionID),
                                       "amount": .string(Money.twoDecimals(order.amount)), "billStatus": .string(status),
                                       "paymentEvent": order.paymentEvent.map {
                                           .object(["paymentStatus": .string($0.status), "transactionId": .string($0.transactionID),
                                                    "paymentMode": .string($0.mode), "paymentDateTime": .string($0.dateTime)])
                                       } ?? .null]
            return .done(["provider": "setu", "order": .object(summary), "payment": .null], [webhook])
        }
    }

    /// A user-event webhook shaped like samples/setu/webhook_*.json.
    private func userEvent(event: String, status: String, order: Order, link: Link, _ context: SimulatorContext) -> WebhookMessage {
        let amount = Money.twoDecimals(order.amount)
        let billerID = link.billerID ?? "BBPSDUMMY001"
        let category = link.categoryName ?? "Electricity"
        var body: WireObject = ["txnId": .string(order.setuTransactionID), "mobileNumber": .string(order.mobileNumber),
                                "status": .string(status)]
        if event != "bill_collection_failure" && event != "bill_payment_refunded" { body["billId"] = .string(order.billID) }
        body["billerId"] = .string(billerID)
        body["billerName"] = "Sandbox Biller"
        body["billerCategory"] = .string(category)
        body["sessionId"] = .string(order.sessionID)
        body["customerId"] = .string(order.customerID)
        body["amountPaid"] = .string(amount)
        body["orderId"] = .string(order.orderID)
        body["event"] = .string(event)
        body["refId"] = .string(order.refID)
        switch event {
        case "bill_payment_success":
            body["paidOn"] = .string(Clock.dayFirst(context.now))
            body["billDetails"] = .array([.object(Self.sandboxBill(amount: order.amount, now: context.now))])
        case "bill_payment_failure":
            body["error"] = .object(["code": "biller-unavailable", "message": "The biller could not confirm the payment.",
                                     "type": "BILLER"])
        default:
            break
        }
        return userEventMessage(event: event, body: body)
    }

    /// A user event as Setu sends it: JSON with its static `X-BILL-WEBHOOK-API-KEY` (setu.md §6).
    func userEventMessage(event: String, body: WireObject) -> WebhookMessage {
        WebhookMessage(provider: .setu, event: event,
                       headers: [("Content-Type", "application/json"), ("X-BILL-WEBHOOK-API-KEY", credentials.setuWebhookKey)],
                       body: Wire.object(body).jsonBytes, orderURL: nil)
    }

    /// One bill of `amount` as `billDetails[]` describes it: dated ten days ago, due in ten days.
    static func sandboxBill(amount: Int64, now: Int64) -> WireObject {
        ["billAmount": .string(Money.twoDecimals(amount)), "billNumber": .string(Identifiers.digits(10)),
         "billDate": .string(String(Clock.utcSpaced(now - 10 * 86_400).prefix(10))),
         "customerName": "Sandbox Customer",
         "dueDate": .string(String(Clock.utcSpaced(now + 10 * 86_400).prefix(10)))]
    }
}
