public import PaymentsCore
/// Instamojo's webhook MAC (docs/providers/instamojo.md §5): the body is form-urlencoded;
/// `mac == hex(HMAC-SHA1(private salt, values of every other field joined by "|",
/// ordered by field name))`. Empty values still take part (`||`), values are
/// joined raw, and new fields must be included (so no field list is assumed).
enum InstamojoWebhook {
    static func signedMessage(_ request: WebhookRequest) -> Result<SignedMessage, WebhookRejection> {
        guard let fields = WireCoding.formDecode(request.body) else {
            return .failure(WebhookRejection("body is not valid form data"))
        }
        return signedMessage(fields: fields)
    }

    static func signedMessage(fields: [(String, String)]) -> Result<SignedMessage, WebhookRejection> {
        let macs = fields.filter { $0.0 == "mac" }
        guard macs.count == 1, let mac = macs.first?.1 else {
            return .failure(WebhookRejection(macs.isEmpty ? "missing mac field" : "more than one mac field"))
        }
        let others = fields.filter { $0.0 != "mac" }
        // A repeated name would make the order (and so the MAC) ambiguous.
        guard Set(others.map(\.0)).count == others.count else { return .failure(WebhookRejection("repeated form field")) }
        // PHP/Python snippets sort case-insensitively, the Java SDK case-sensitively;
        // they agree for Instamojo's lower-case names. Case-insensitive first, then
        // exact order as a tie-break, so the order is total.
        let sorted = others.sorted { left, right in
            let a = left.0.lowercased(), b = right.0.lowercased()
            return a == b ? left.0 < right.0 : a < b
        }
        let message = sorted.map(\.1).joined(separator: "|")
        return .success(SignedMessage(message: Array(message.utf8), presentedSignature: mac, scheme: .hmacSHA1Hex))
    }
}

extension InstamojoWebhook {
    /// Normalises the form fields (docs/providers/instamojo.md §5): `status` `Credit` = paid,
    /// `Failed` = failed; anything else is unknown. Instamojo sends no event id:
    /// the payment id and status identify the event.
    static func event(_ request: WebhookRequest) throws(ProviderError) -> WebhookEvent {
        guard let pairs = WireCoding.formDecode(request.body) else { throw .webhookPayload(.instamojo, "body is not form data") }
        var fields: [String: String] = [:]
        for (name, value) in pairs where fields[name] == nil { fields[name] = value }
        guard let paymentID = fields["payment_id"], !paymentID.isEmpty, let status = fields["status"] else {
            throw .webhookPayload(.instamojo, "payment_id or status missing")
        }
        let paymentStatus: PaymentStatus = switch status {
        case "Credit": .captured
        case "Failed": .failed
        default: .unknown(status)
        }
        var amount: Amount?
        if let text = fields["amount"] {
            do {
                amount = try AmountConversion.fromDecimalText(text, currencyCode: fields["currency"],
                                                              rules: AmountRules(currencies: ["INR"], minimum: 0, maximum: Int64.max))
            } catch {
                throw .webhookPayload(.instamojo, "amount: \(error)")
            }
        }
        let request = fields["payment_request_id"].flatMap { $0.isEmpty ? nil : $0 }
        return WebhookEvent(provider: .instamojo, eventID: "\(paymentID):\(status)", type: status, orderID: request,
                            paymentID: paymentID, paymentStatus: paymentStatus, rawPaymentStatus: status, amount: amount)
    }
}
