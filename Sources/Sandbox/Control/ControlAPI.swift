import HTTPServer

/// The control API's endpoints, matched by ``controlRoutes`` (patterns after `/_sandbox`).
enum ControlEndpoint: Sendable {
    case health, reset, inspectOrder, completeOrder, completeCashfreeRefund, initiateSetuLink, fetchSetuBill, expireTokens
    case setuPartnerCall, refuseSetuPaymentEvents, webhookLog, redeliverWebhook, addFault, listFaults, clearFaults, removeFault
    case inspectInstamojoCollect, completeInstamojoCollect
}

/// Every control route, in the order they are tried.
let controlRoutes: Router<ControlEndpoint> = {
    var router = Router<ControlEndpoint>()
    let routes: [(String, ControlEndpoint)] = [
        ("GET /health", .health), ("POST /reset", .reset),
        ("GET /{provider}/orders/{id}", .inspectOrder),
        ("POST /cashfree/orders/{id}/refunds/{refund}/complete", .completeCashfreeRefund),
        ("POST /{provider}/orders/{id}/complete", .completeOrder),
        ("POST /setu/links/{session}/initiate", .initiateSetuLink),
        ("POST /setu/links/{session}/fetch", .fetchSetuBill),
        ("POST /{provider}/tokens/expire", .expireTokens),
        ("GET /instamojo/collects/{id}", .inspectInstamojoCollect),
        ("POST /instamojo/collects/{id}/complete", .completeInstamojoCollect),
        ("POST /setu/orders/{id}/{call}", .setuPartnerCall),
        ("POST /setu/payment-events/refuse", .refuseSetuPaymentEvents),
        ("GET /webhooks", .webhookLog), ("POST /webhooks/{id}/redeliver", .redeliverWebhook),
        ("POST /faults", .addFault), ("GET /faults", .listFaults), ("DELETE /faults", .clearFaults), ("DELETE /faults/{id}", .removeFault),
    ]
    for (pattern, endpoint) in routes {
        // Fixed patterns written here: a malformed one fails every sandbox test at once.
        try? router.add(pattern, endpoint)
    }
    return router
}()

/// `/_sandbox/...`: finishing payments, the webhook log, fault rules, reset.
extension SandboxRouter {
    func control(_ request: SandboxRequest) async -> SandboxResponse {
        let path = "/" + request.segments.dropFirst().joined(separator: "/")
        let endpoint: ControlEndpoint
        let p: [String: String]
        switch controlRoutes.match(method: request.method, path: path) {
        case .found(let found, let parameters):
            endpoint = found
            p = parameters
        case .methodNotAllowed, .notFound:
            return Self.controlError(404, "unknown control endpoint \(request.method) \(request.path) (see docs/sandbox.md)")
        }
        let provider = p["provider"] ?? "", id = p["id"] ?? ""
        switch endpoint {
        case .health:
            return .json(.object(["status": "ok"]))
        case .reset:
            for simulator in simulators { simulator.reset() }
            faults.removeAll()
            dispatcher.clearLog()
            return .json(.object(["status": "reset"]))
        case .inspectOrder:
            guard let provider = SandboxProvider(rawValue: provider), let simulator = simulator(provider) else {
                return Self.controlError(404, "unknown provider '\(provider)'")
            }
            guard let order = simulator.inspect(orderID: id) else {
                return Self.controlError(404, "\(provider): no order \(id) (inspection: razorpay, cashfree and setu)")
            }
            return .json(.object(order))
        case .completeOrder:
            guard let provider = SandboxProvider(rawValue: provider), let simulator = simulator(provider) else {
                return Self.controlError(404, "unknown provider '\(provider)'")
            }
            let body: WireObject
            if request.body.isEmpty {
                body = WireObject()
            } else if let parsed = request.jsonObject() {
                body = parsed
            } else {
                return Self.controlError(400, "body must be a JSON object")
            }
            return await answer(simulator.complete(orderID: id, body: body, context: context(for: request)))
        case .completeCashfreeRefund:
            guard let cashfree = simulator(.cashfree) as? CashfreeSimulator else { return Self.controlError(404, "cashfree is not simulated") }
            let body = request.body.isEmpty ? WireObject() : (request.jsonObject() ?? WireObject())
            return await answer(cashfree.completeRefund(orderID: id, refundID: p["refund"] ?? "", body: body, context: context(for: request)))
        case .initiateSetuLink:
            guard let setu = simulator(.setu) as? SetuSimulator else { return Self.controlError(404, "setu is not simulated") }
            let body = request.body.isEmpty ? WireObject() : (request.jsonObject() ?? WireObject())
            return setu.initiate(sessionID: p["session"] ?? "", body: body, context: context(for: request))
        case .fetchSetuBill:
            guard let setu = simulator(.setu) as? SetuSimulator else { return Self.controlError(404, "setu is not simulated") }
            guard let body = request.body.isEmpty ? WireObject() : request.jsonObject() else { return Self.controlError(400, "body must be a JSON object") }
            return await answer(setu.fetchBill(sessionID: p["session"] ?? "", body: body, context: context(for: request)))
        case .expireTokens:
            // Lets a client's token refresh be tested without waiting for the expiry.
            switch SandboxProvider(rawValue: provider).flatMap({ simulator($0) }) {
            case let instamojo as InstamojoSimulator: instamojo.expireAllTokens()
            case let setu as SetuSimulator: setu.expireAllTokens()
            default: return Self.controlError(404, "only instamojo and setu issue tokens")
            }
            return .json(.object(["status": "expired"]))
        case .inspectInstamojoCollect:
            guard let instamojo = simulator(.instamojo) as? InstamojoSimulator else { return Self.controlError(404, "instamojo is not simulated") }
            guard let collect = instamojo.inspectCollect(paymentID: id) else { return Self.controlError(404, "instamojo: no UPI collect \(id)") }
            return .json(.object(collect))
        case .completeInstamojoCollect:
            guard let instamojo = simulator(.instamojo) as? InstamojoSimulator else { return Self.controlError(404, "instamojo is not simulated") }
            guard let body = request.body.isEmpty ? WireObject() : request.jsonObject() else { return Self.controlError(400, "body must be a JSON object") }
            return await answer(instamojo.completeCollect(paymentID: id, body: body, context: context(for: request)))
        case .setuPartnerCall:
            guard let call = p["call"], call == "payment-status" || call == "refund" else {
                return Self.controlError(404, "unknown control endpoint \(request.method) \(request.path) (see docs/sandbox.md)")
            }
            guard let setu = simulator(.setu) as? SetuSimulator else { return Self.controlError(404, "setu is not simulated") }
            return await setuPartnerCall(setu, kind: call, orderID: id)
        case .refuseSetuPaymentEvents:
            guard let setu = simulator(.setu) as? SetuSimulator else { return Self.controlError(404, "setu is not simulated") }
            return setu.addRefusal(request.body.isEmpty ? WireObject() : (request.jsonObject() ?? WireObject()))
        case .webhookLog:
            return .json(.array(dispatcher.log().map { .object($0.detail) }))
        case .redeliverWebhook:
            guard let delivery = await dispatcher.redeliver(id: id) else {
                return Self.controlError(404, "no webhook delivery \(id)")
            }
            return .json(.object(delivery.summary))
        case .addFault:
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
        case .listFaults:
            return .json(.array(faults.list().map { entry in
                var object = entry.rule.wire
                object["id"] = .string(entry.id)
                object["remaining"] = entry.remaining.map { .int(Int64($0)) } ?? .null
                return .object(object)
            }))
        case .clearFaults:
            faults.removeAll()
            return .json(.object(["status": "cleared"]))
        case .removeFault:
            return faults.remove(id: id) ? .json(.object(["status": "removed"])) : Self.controlError(404, "no fault \(id)")
        }
    }

    /// The answer to a completion: the refusal, or the result with the webhooks it sent (delivered first).
    private func answer(_ outcome: ControlOutcome) async -> SandboxResponse {
        switch outcome {
        case .refused(let status, let message):
            return Self.controlError(status, message)
        case .done(var result, let webhooks):
            let deliveries = await dispatcher.deliver(webhooks)
            result["webhooks"] = .array(deliveries.map { .object($0.summary) })
            return .json(.object(result))
        }
    }

    static func controlError(_ status: Int, _ message: String) -> SandboxResponse {
        .json(.object(["error": .string(message)]), status: status)
    }
}
