import Support

/// The bill fetch inside Setu's screens, played by the control API: the user opens the link,
/// enters (or has) the bill's identifiers, and Setu asks the biller for the bill. Setu then sends
/// the partner a `bill_fetch_success` or `bill_fetch_failure` user event (docs/providers/setu.md §6,
/// shaped like samples/setu/webhook_bill_fetch_success.json). The failure body's shape is the
/// table's `…, fetchErrorCode, error{code,message}`: Setu publishes no failure sample, so the
/// sandbox sends the success body's identifying fields with those three instead of the bill.
extension SetuSimulator {
    /// `POST /_sandbox/setu/links/{sessionId}/fetch` `{"status":"success"|"failure","amount":"101.00","code","message"}`
    /// (all optional: success, 100.00, `biller-unavailable`).
    func fetchBill(sessionID: String, body: WireObject, context: SimulatorContext) -> ControlOutcome {
        let outcome = completionStatus(body) ?? "success"
        guard outcome == "success" || outcome == "failure" else {
            return .refused(status: 400, message: "setu: \"status\" must be success or failure")
        }
        let amountText = body["amount"]?.stringValue ?? "100.00"
        guard let amount = Money.paise(fromDecimal: amountText), amount > 0 else {
            return .refused(status: 400, message: "setu: amount must be a decimal string like \"100.00\"")
        }
        guard let link = state.withLock({ $0.links[sessionID] }) else {
            return .refused(status: 404, message: "setu: no session \(sessionID)")
        }
        let billerID = link.billerID ?? "BBPSDUMMY001"
        let biller = Self.billers.first { $0.id == billerID }
        var event: WireObject = ["mobileNumber": .string(link.mobileNumber ?? "9876543210")]
        event["billerId"] = .string(billerID)
        event["billerName"] = .string(biller?.name ?? "Sandbox Biller")
        event["billerCategory"] = .string(link.categoryName ?? biller?.category ?? "Water")
        if let customer = link.customerID { event["customerId"] = .string(customer) }
        event["sessionId"] = .string(sessionID)
        event["refId"] = .string("CMA" + Identifiers.base62(32).uppercased())
        if outcome == "success" {
            let bill = Self.sandboxBill(amount: amount, now: context.now)
            event["status"] = "FETCH_SUCCESS"
            event["event"] = "bill_fetch_success"
            event["billId"] = .string(Identifiers.uuid())
            // The individual bill fields are deprecated in favour of billDetails[], and still sent (§6).
            for (key, value) in bill.members { event[key] = value }
            event["additionalInfo"] = .array([])
            event["billDetails"] = .array([.object(bill)])
        } else {
            let code = body["code"]?.stringValue ?? "biller-unavailable"
            event["status"] = "FETCH_FAILURE"
            event["event"] = "bill_fetch_failure"
            event["fetchErrorCode"] = .string(code)
            event["error"] = .object(["code": .string(code),
                                      "message": .string(body["message"]?.stringValue ?? "The biller could not be reached to fetch the bill.")])
        }
        let webhook = userEventMessage(event: event["event"]?.stringValue ?? "", body: event)
        return .done(["provider": "setu", "sessionId": .string(sessionID), "event": .object(event)], [webhook])
    }
}
