import Support

/// Setu calling the partner: `getPaymentStatus` and `refund` (docs/providers/setu.md §5), played
/// from the control API so a gateway's endpoints can be exercised and checked.
extension SandboxRouter {
    func setuPartnerCall(_ setu: SetuSimulator, kind: String, orderID: String) async -> SandboxResponse {
        guard let base = setuPartnerURL else {
            return Self.controlError(409, "setu: no partner URL configured (--setu-partner-url)")
        }
        let call: SetuSimulator.PartnerCall
        switch setu.partnerCall(kind, orderID: orderID) {
        case .success(let made): call = made
        case .failure(let refusal): return Self.controlError(refusal.status, refusal.message)
        }
        let url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + call.path
        let headers: [(name: String, value: String)] = [("Content-Type", "application/json"),
                                                        ("X-SETU-BILLPAY-API-KEY", setu.credentials.setuBillPayAPIKey)]
        let (delivery, answer) = await dispatcher.call(provider: .setu, event: call.event, url: url, headers: headers, body: call.body)
        var result = delivery.summary
        let parsed = try? Wire.parse(answer)
        result["response"] = parsed ?? (answer.isEmpty ? .null : .string(String(decoding: answer, as: UTF8.self)))
        result["problems"] = .array((delivery.status == nil ? [] : SetuSimulator.check(kind, answer: parsed, orderID: orderID))
            .map { .string($0) })
        return .json(.object(result))
    }
}

extension SetuSimulator {
    /// One call Setu makes to the partner.
    struct PartnerCall: Sendable {
        let event: String
        let path: String
        let body: [UInt8]
    }

    struct Refusal: Error {
        let status: Int
        let message: String
    }

    /// Builds `getPaymentStatus` (`{"orderId"}`) or `refund` (`{orderId, amount, transactionId}`;
    /// needs the partner's SUCCESS payment-event, whose transaction id it names).
    func partnerCall(_ kind: String, orderID: String) -> Result<PartnerCall, Refusal> {
        state.withLock { state in
            guard let order = state.orders[orderID] else { return .failure(Refusal(status: 404, message: "setu: no order \(orderID)")) }
            if kind == "payment-status" {
                return .success(PartnerCall(event: "getPaymentStatus", path: "/setu/v1/getPaymentStatus",
                                            body: Wire.object(["orderId": .string(orderID)]).jsonBytes))
            }
            guard let paid = order.paymentEvent, paid.status == "SUCCESS" else {
                return .failure(Refusal(status: 409, message: "setu: no SUCCESS payment-event for \(orderID) to refund"))
            }
            return .success(PartnerCall(event: "refund", path: "/setu/v1/refund",
                                        body: Wire.object(["orderId": .string(orderID), "amount": .string(Money.twoDecimals(order.amount)),
                                                           "transactionId": .string(paid.transactionID)]).jsonBytes))
        }
    }

    /// What is wrong with the partner's answer, by the shapes in docs/providers/setu.md §5 (empty = conforms).
    static func check(_ kind: String, answer: Wire?, orderID: String) -> [String] {
        guard let object = answer?.objectValue else { return ["the answer is not a JSON object"] }
        var problems: [String] = []
        let status = object["status"]?.stringValue
        if kind == "payment-status" {
            guard status == "success" || status == "invalid-order-id" else {
                return ["status must be \"success\" or \"invalid-order-id\""]
            }
            if status == "success" {
                guard let data = object["data"]?.objectValue else { return ["success needs data"] }
                if data["orderId"]?.stringValue != orderID { problems.append("data.orderId must be \(orderID)") }
                for key in ["transactionId", "paymentDateTime", "amount", "paymentMode", "paymentStatus"] where data[key]?.stringValue == nil {
                    problems.append("data.\(key) must be a string")
                }
                if let time = data["paymentDateTime"]?.stringValue, !Clock.isSpacedDateTime(time) {
                    problems.append("data.paymentDateTime must be YYYY-MM-DD HH:MM:SS")
                }
                if let amount = data["amount"]?.stringValue, Money.paise(fromDecimal: amount) == nil {
                    problems.append("data.amount must be a decimal string")
                }
                if let mode = data["paymentMode"]?.stringValue, !paymentModes.contains(mode.uppercased()) {
                    problems.append("data.paymentMode is not a Setu payment mode")
                }
                if let paid = data["paymentStatus"]?.stringValue, paid != "SUCCESS", paid != "FAILURE" {
                    problems.append("data.paymentStatus must be SUCCESS or FAILURE")
                }
            }
        } else {
            guard status == "success" || status == "failure" else { return ["status must be \"success\" or \"failure\""] }
            if object["message"]?.stringValue == nil { problems.append("message must be a string") }
            if status == "success" {
                let data = object["data"]?.objectValue
                if data?["orderId"]?.stringValue != orderID { problems.append("data.orderId must be \(orderID)") }
                if data?["refundId"]?.stringValue == nil { problems.append("data.refundId must be a string") }
                if data?["transactionId"]?.stringValue == nil { problems.append("data.transactionId must be a string") }
            }
        }
        return problems
    }
}
