import Crypto
import Support

/// The mobile SDK's checkout endpoints, finishing payments, and the form webhook.
///
/// Shapes follow the official Android SDK's parser (`checkout-options`,
/// UPI submission and status; `status_code` 2 = pending, 5 = succeeded).
/// Unsure: these are not in the v2 reference, and the failed status code (6)
/// and the status-check path are the sandbox's own choices — clients follow
/// the `status_check_url` they are given.
extension InstamojoSimulator {
    /// Bank codes are the sandbox's choice (the first four letters of the bank's IFSC); Instamojo's own are not documented.
    static let netbankingBanks: [(String, String)] = [("HDFC", "HDFC Bank"), ("ICIC", "ICICI Bank"),
                                                      ("SBIN", "State Bank of India"), ("UTIB", "Axis Bank"),
                                                      ("KKBK", "Kotak Mahindra Bank")]
    /// ICICI's plans are deliberately not in tenure order: the wire promises no order (only the SDK sorts).
    static let emiBanks: [(code: String, name: String, rates: [(Int, String)])] = [
        ("HDFC", "HDFC Bank", [(3, "13.00"), (6, "13.00"), (9, "14.00"), (12, "14.00")]),
        ("ICIC", "ICICI Bank", [(12, "15.00"), (3, "13.00"), (6, "13.5")]),
    ]
    static let wallets: [(String, String)] = [("paytm", "Paytm"), ("mobikwik", "MobiKwik"), ("freecharge", "FreeCharge")]

    func checkoutOptions(_ orderID: String, _ context: SimulatorContext) -> SandboxResponse {
        state.withLock { state in
            guard let order = state.orders[orderID] else { return Self.notFound() }
            let base = context.rootURL + SandboxProvider.instamojo.basePath + "/v2/gateway/orders/\(orderID)"
            let submission: Wire = .object(["merchant_id": "sandbox_merchant", "order_id": .string(orderID)])
            let options: WireObject = [
                "card_options": .object(["submission_url": .string(base + "/card/"), "submission_data": submission]),
                "netbanking_options": .object([
                    "submission_url": .string(base + "/netbanking/"),
                    "choices": .array(Self.netbankingBanks.map { .object(["id": .string($0.0), "name": .string($0.1)]) }),
                ]),
                "emi_options": .object([
                    "emi_list": .array(Self.emiBanks.map { bank in
                        .object(["bank_name": .string(bank.name), "bank_code": .string(bank.code),
                                 "rates": .array(bank.rates.map { .object(["tenure": .int(Int64($0.0)), "interest": .string($0.1)]) })])
                    }),
                    "submission_url": .string(base + "/card/"), "submission_data": submission,
                ]),
                "wallet_options": .object([
                    "submission_url": .string(base + "/wallet/"),
                    "choices": .array(Self.wallets.map {
                        .object(["id": .string($0.0), "name": .string($0.1),
                                 "image": .string(context.rootURL + "/instamojo/static/wallets/\($0.0).png")])
                    }),
                ]),
                "upi_options": .object(["submission_url": .string(base + "/upi/")]),
            ]
            return .json(.object(["order": order.wire(root: context.rootURL), "payment_options": .object(options)]))
        }
    }

    /// `POST …/upi/` with `virtual_address`: starts a collect request (status 2, pending).
    func upiCollect(_ orderID: String, _ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        var f = InstamojoFields(request.formOrJSON() ?? WireObject())
        guard let vpa = f.required("virtual_address", max: 255) else { return f.errors.response }
        guard isVPA(vpa) else {
            var errors = FieldErrors()
            errors.add("virtual_address", "Enter a valid VPA.")
            return errors.response
        }
        return state.withLock { state in
            let payment: Instamojo.Payment
            switch state.startPayment(orderID: orderID, instrument: "UPI", vpa: vpa, context: context) {
            case .success(let started): payment = started
            case .failure(let refusal): return refusal.response
            }
            let statusURL = context.rootURL + SandboxProvider.instamojo.basePath
                + "/v2/gateway/orders/\(orderID)/upi/\(payment.id)/status/"
            return .json(.object(["payment_id": .string(payment.id), "status_code": .int(2),
                                  "payer_virtual_address": .string(vpa), "payee_virtual_address": "instamojo.sandbox@yesbank",
                                  "status_check_url": .string(statusURL), "upi_bank": "YES Bank",
                                  "status_message": "Collect request sent. Approve it in your UPI app."]))
        }
    }

    func upiStatus(_ orderID: String, paymentID: String) -> SandboxResponse {
        state.withLock { state in
            guard var payment = state.payments[paymentID], payment.orderID == orderID, payment.vpa != nil else {
                return Self.notFound()
            }
            payment.statusChecks += 1
            state.payments[paymentID] = payment
            let (code, message): (Int64, String) = switch payment.status {
            case nil: (2, "Waiting for the payer to approve the collect request")
            case true?: (5, "Payment succeeded")
            case false?: (6, payment.failure?.message ?? "Payment failed")
            }
            return .json(.object(["payment_id": .string(paymentID), "status_code": .int(code), "status_message": .string(message)]))
        }
    }

    // MARK: Control

    /// `paid` or `failed`, for a payment request id or a gateway order id.
    func complete(orderID id: String, body: WireObject, context: SimulatorContext) -> ControlOutcome {
        guard let outcome = completionStatus(body), outcome == "paid" || outcome == "failed" else {
            return .refused(status: 400, message: "instamojo: \"status\" must be paid or failed (no expired state is documented)")
        }
        let instrument = (body["method"]?.stringValue ?? "UPI").uppercased()
        guard ["UPI", "CARD", "EMI", "NETBANKING", "WALLET"].contains(instrument) else {
            return .refused(status: 400, message: "instamojo: method must be UPI, CARD, EMI, NETBANKING or WALLET")
        }
        let succeeded = outcome == "paid"
        let now = context.nowMilliseconds
        return state.withLock { state -> ControlOutcome in
            var order = state.orders[id]
            let requestID = order?.paymentRequestID ?? (state.paymentRequests[id] != nil ? id : nil)
            var paymentRequest = requestID.flatMap { state.paymentRequests[$0] }
            guard order != nil || paymentRequest != nil else {
                return .refused(status: 404, message: "instamojo: no payment request or gateway order \(id)")
            }
            if let current = order, current.status != "pending" {
                return .refused(status: 409, message: "instamojo: order \(id) is already \(current.status)")
            }
            if let current = paymentRequest, order == nil, current.status == "Completed", !current.allowRepeatedPayments {
                return .refused(status: 409, message: "instamojo: payment request \(id) is already Completed")
            }
            // A pending UPI collect on the order becomes this payment.
            let pending = order?.payments.compactMap { state.payments[$0] }.first { $0.status == nil }
            let amount = order?.amount ?? paymentRequest?.amount ?? 0
            var payment = pending ?? Instamojo.Payment(
                id: "MOJO" + Identifiers.base62(16).uppercased(),
                title: paymentRequest?.purpose ?? order?.description ?? "Gateway order", paymentRequestID: requestID,
                orderID: order?.id, status: nil, amount: amount, name: paymentRequest?.buyerName ?? order?.name,
                email: paymentRequest?.email ?? order?.email, phone: paymentRequest?.phone ?? order?.phone,
                instrument: instrument, failure: nil, createdAt: now, updatedAt: now, vpa: nil)
            payment.status = succeeded
            payment.updatedAt = now
            if !succeeded { payment.failure = ("AUTHORIZATION_FAILED", "Transaction was declined by the bank") }
            state.payments[payment.id] = payment
            if var current = order {
                if !current.payments.contains(payment.id) { current.payments.append(payment.id) }
                current.status = succeeded ? "completed" : "failed"
                state.orders[current.id] = current
                order = current
            }
            if var current = paymentRequest {
                current.payments.append(payment.id)
                if succeeded { current.status = "Completed" }
                current.modifiedAt = now
                state.paymentRequests[current.id] = current
                paymentRequest = current
            }
            let webhook = webhookMessage(payment: payment, paymentRequest: paymentRequest, order: order, context)
            var result: WireObject = ["provider": "instamojo"]
            result["order"] = order.map { $0.wire(root: context.rootURL) } ?? paymentRequest.map { $0.wire(root: context.rootURL) } ?? .null
            if let order, let paymentRequest, order.id != paymentRequest.id {
                result["payment_request"] = paymentRequest.wire(root: context.rootURL)
            }
            result["payment"] = payment.wire(root: context.rootURL)
            return .done(result, [webhook])
        }
    }

    /// The form-encoded webhook with its `mac` (HMAC-SHA1 over the sorted values, joined by `|`).
    /// Unsure: gateway-order webhooks are not documented; they carry the same fields here,
    /// with `payment_request_id` empty when the order did not come from a payment request.
    func webhookMessage(payment: Instamojo.Payment, paymentRequest: Instamojo.PaymentRequest?,
                        order: Instamojo.GatewayOrder?, _ context: SimulatorContext) -> WebhookMessage {
        let succeeded = payment.status == true
        var fields: [(String, String)] = [
            ("amount", Money.twoDecimals(payment.amount)), ("buyer", payment.email ?? ""),
            ("buyer_name", payment.name ?? ""), ("buyer_phone", payment.phone ?? ""), ("currency", "INR"),
            ("fees", succeeded ? Money.twoDecimals(payment.fees) : "0.00"),
            ("longurl", Instamojo.longURL(root: context.rootURL, id: paymentRequest?.id ?? order?.id ?? "")),
            ("payment_id", payment.id), ("payment_request_id", paymentRequest?.id ?? ""),
            ("purpose", paymentRequest?.purpose ?? order?.description ?? ""), ("shorturl", ""),
            ("status", succeeded ? "Credit" : "Failed"),
        ]
        fields.append(("mac", InstamojoMAC.compute(fields: fields, salt: credentials.instamojoPrivateSalt)))
        return WebhookMessage(provider: .instamojo, event: succeeded ? "Credit" : "Failed",
                              headers: [("Content-Type", "application/x-www-form-urlencoded")],
                              body: URLEncodedForm.encode(fields), orderURL: paymentRequest?.webhook ?? order?.webhookURL)
    }
}

/// `name@handle`: 2–256 characters of letters, digits, `.`, `-`, `_`, then a letters-only handle.
func isVPA(_ text: String) -> Bool {
    let parts = text.split(separator: "@", omittingEmptySubsequences: false)
    guard parts.count == 2 else { return false }
    let user = parts[0]
    let handle = parts[1]
    return (2...256).contains(user.count)
        && user.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }
        && (2...64).contains(handle.count) && handle.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
}
