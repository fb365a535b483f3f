/// `/_sandbox/...`: finishing payments, the webhook log, fault rules, reset.
extension SandboxRouter {
    func control(_ request: SandboxRequest) async -> SandboxResponse {
        let s = Array(request.segments.dropFirst())
        switch (request.method, s.count) {
        case ("GET", 1) where s[0] == "health":
            return .json(.object(["status": "ok"]))
        case ("POST", 1) where s[0] == "reset":
            for simulator in simulators { simulator.reset() }
            faults.removeAll()
            dispatcher.clearLog()
            return .json(.object(["status": "reset"]))
        case ("GET", 3) where s[1] == "orders":
            guard let provider = SandboxProvider(rawValue: s[0]), let simulator = simulator(provider) else {
                return Self.controlError(404, "unknown provider '\(s[0])'")
            }
            guard let order = simulator.inspect(orderID: s[2]) else {
                return Self.controlError(404, "\(s[0]): no order \(s[2]) (inspection: razorpay and cashfree)")
            }
            return .json(.object(order))
        case ("POST", 4) where s[1] == "orders" && s[3] == "complete":
            guard let provider = SandboxProvider(rawValue: s[0]), let simulator = simulator(provider) else {
                return Self.controlError(404, "unknown provider '\(s[0])'")
            }
            let body: WireObject
            if request.body.isEmpty {
                body = WireObject()
            } else if let parsed = request.jsonObject() {
                body = parsed
            } else {
                return Self.controlError(400, "body must be a JSON object")
            }
            switch simulator.complete(orderID: s[2], body: body, context: context(for: request)) {
            case .refused(let status, let message):
                return Self.controlError(status, message)
            case .done(var result, let webhooks):
                let deliveries = await dispatcher.deliver(webhooks)
                result["webhooks"] = .array(deliveries.map { .object($0.summary) })
                return .json(.object(result))
            }
        case ("POST", 6) where s[0] == "cashfree" && s[1] == "orders" && s[3] == "refunds" && s[5] == "complete":
            guard let cashfree = simulator(.cashfree) as? CashfreeSimulator else { return Self.controlError(404, "cashfree is not simulated") }
            let body = request.body.isEmpty ? WireObject() : (request.jsonObject() ?? WireObject())
            switch cashfree.completeRefund(orderID: s[2], refundID: s[4], body: body, context: context(for: request)) {
            case .refused(let status, let message):
                return Self.controlError(status, message)
            case .done(var result, let webhooks):
                let deliveries = await dispatcher.deliver(webhooks)
                result["webhooks"] = .array(deliveries.map { .object($0.summary) })
                return .json(.object(result))
            }
        case ("POST", 4) where s[0] == "setu" && s[1] == "links" && s[3] == "initiate":
            guard let setu = simulator(.setu) as? SetuSimulator else { return Self.controlError(404, "setu is not simulated") }
            let body = request.body.isEmpty ? WireObject() : (request.jsonObject() ?? WireObject())
            return setu.initiate(sessionID: s[2], body: body, context: context(for: request))
        case ("POST", 3) where s[1] == "tokens" && s[2] == "expire":
            // Lets a client's token refresh be tested without waiting for the expiry.
            switch SandboxProvider(rawValue: s[0]).flatMap({ simulator($0) }) {
            case let instamojo as InstamojoSimulator: instamojo.expireAllTokens()
            case let setu as SetuSimulator: setu.expireAllTokens()
            default: return Self.controlError(404, "only instamojo and setu issue tokens")
            }
            return .json(.object(["status": "expired"]))
        case ("POST", 4) where s[0] == "setu" && s[1] == "orders" && (s[3] == "payment-status" || s[3] == "refund"):
            guard let setu = simulator(.setu) as? SetuSimulator else { return Self.controlError(404, "setu is not simulated") }
            return await setuPartnerCall(setu, kind: s[3], orderID: s[2])
        case ("GET", 1) where s[0] == "webhooks":
            return .json(.array(dispatcher.log().map { .object($0.detail) }))
        case ("POST", 3) where s[0] == "webhooks" && s[2] == "redeliver":
            guard let delivery = await dispatcher.redeliver(id: s[1]) else {
                return Self.controlError(404, "no webhook delivery \(s[1])")
            }
            return .json(.object(delivery.summary))
        case ("POST", 1) where s[0] == "faults":
            guard let object = request.jsonObject() else { return Self.controlError(400, "body must be a JSON fault rule") }
            do {
                let rule = try FaultRule(object: object)
                guard let id = faults.add(rule) else { return Self.controlError(400, "invalid route") }
                var answer = rule.wire
                answer["id"] = .string(id)
                return .json(.object(answer), status: 201)
            } catch {
                return Self.controlError(400, error.description)
            }
        case ("GET", 1) where s[0] == "faults":
            return .json(.array(faults.list().map { entry in
                var object = entry.rule.wire
                object["id"] = .string(entry.id)
                object["remaining"] = entry.remaining.map { .int(Int64($0)) } ?? .null
                return .object(object)
            }))
        case ("DELETE", 1) where s[0] == "faults":
            faults.removeAll()
            return .json(.object(["status": "cleared"]))
        case ("DELETE", 2) where s[0] == "faults":
            return faults.remove(id: s[1]) ? .json(.object(["status": "removed"])) : Self.controlError(404, "no fault \(s[1])")
        default:
            return Self.controlError(404, "unknown control endpoint \(request.method) \(request.path) (see docs/sandbox.md)")
        }
    }

    static func controlError(_ status: Int, _ message: String) -> SandboxResponse {
        .json(.object(["error": .string(message)]), status: status)
    }
}
