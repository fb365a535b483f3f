import Foundation
import GraphQL
import JSON
import PaymentsCore
import Postgres

/// `Mutation` fields. Each decodes its `input`, calls a service and returns a payload;
/// business failures become `userErrors`, and every mutation is idempotent (``run``).
enum MutationResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        mutation(&set, "createCustomer", services) { input, context in
            let request = CustomerService.CreateRequest(
                name: input.string("name"), email: input.string("email"), phone: input.string("phone"), gstin: input.string("gstin"),
                notes: input.keyValues("notes"), failIfExists: input.bool("failIfExists") ?? false,
                registerWith: (input.strings("registerWith") ?? []).compactMap(ProviderName.init(graphQLName:)))
            let created = try await services.customers.create(request, context: context)
            return MutationResult(members: ["customer": created.customer.map(CustomerView.init), "existing": created.existing],
                                  ids: ["customer": created.customer?.id, "existing": created.existing ? UUID(uuid: UUID.zero) : nil],
                                  userErrors: created.userErrors)
        } replay: { ids in
            let customer = try await ids.uuid("customer").asyncMap { try await services.customerStore.find(id: $0) } ?? nil
            return ["customer": customer.map(CustomerView.init), "existing": ids.uuid("existing") != nil]
        }

        mutation(&set, "updateCustomer", services) { input, context in
            let updated = try await services.customers.update(CustomerService.UpdateRequest(
                customerID: try input.requiredID("customerId", of: .customer), name: input.string("name"), email: input.string("email"),
                phone: input.string("phone"), gstin: input.string("gstin"), notes: input.keyValues("notes")))
            return MutationResult(members: ["customer": CustomerView(record: updated)], ids: ["customer": updated.id])
        } replay: { ids in
            ["customer": try await ids.uuid("customer").asyncMap { try await services.customerStore.find(id: $0) }?.map(CustomerView.init)]
        }

        mutation(&set, "createOrder", services) { input, context in
            guard let money = try input.money("amount") else { throw UserError.required("amount") }
            var customerID = try input.id("customerId", of: .customer)
            if let session = context.principal.session {
                if let customerID, customerID != session.customerID {
                    throw GatewayRequestError(code: "FORBIDDEN", message: "a client session may create orders only for its own customer")
                }
                customerID = session.customerID
            }
            let order = try await services.orders.create(OrderService.CreateRequest(
                amountMinor: money.minorUnits, currency: money.currency, receipt: input.string("receipt"), customerID: customerID,
                provider: input.provider("provider"), flow: input.string("flow") ?? "STANDARD", method: input.string("method"),
                description: input.string("description"), notes: input.keyValues("notes"), returnURL: input.string("returnUrl"),
                expiresAt: input.string("expiresAt"), tpvBankAccountID: try input.id("tpvBankAccountId", of: .bankAccount)), context: context)
            let errors = order.needsReconciliation
                ? [UserError(.providerTimeout, "the provider's answer was lost; the order will be reconciled by its receipt", provider: order.provider)]
                : []
            return MutationResult(members: ["order": OrderView(record: order)], ids: ["order": order.id], userErrors: errors, keepKey: true)
        } replay: { ids in
            ["order": try await ids.uuid("order").asyncMap { try await services.orderStore.find(id: $0) }?.map(OrderView.init)]
        }

        mutation(&set, "verifyOrderPayment", services) { input, context in
            let order = try await ownOrder(try input.requiredID("orderId", of: .order), context: context, services: services)
            let outcome = input.string("clientOutcome") ?? "SUCCESS_CALLBACK"
            let verified: OrderService.Verified
            if order.provider == .razorpay, outcome == "SUCCESS_CALLBACK" {
                guard let result = input.nested("razorpay") else {
                    throw UserError(.required, "a Razorpay success callback needs input.razorpay", field: ["input", "razorpay"])
                }
                verified = try await services.orders.verifyRazorpay(
                    order: order, paymentID: try result.requiredString("razorpayPaymentId"), orderID: try result.requiredString("razorpayOrderId"),
                    signature: try result.requiredString("razorpaySignature"), context: context)
            } else {
                // Anything else the SDK said is recorded by asking the provider (never believed as such).
                verified = try await services.orders.sync(order: order, context: context)
            }
            return MutationResult(members: ["order": OrderView(record: verified.order), "payment": verified.payment.map(PaymentView.init),
                                            "verified": verified.verified],
                                  ids: ["order": verified.order.id, "payment": verified.payment?.id], userErrors: verified.userErrors)
        } replay: { ids in
            let order = try await ids.uuid("order").asyncMap { try await services.orderStore.find(id: $0) } ?? nil
            let payment = try await ids.uuid("payment").asyncMap { try await services.paymentStore.payments(ids: [$0])[$0] } ?? nil
            return ["order": order.map(OrderView.init), "payment": payment.map(PaymentView.init),
                    "verified": order?.status == .paid]
        }

        mutation(&set, "syncOrder", services) { input, context in
            let order = try await ownOrder(try input.requiredID("orderId", of: .order), context: context, services: services)
            let synced = try await services.orders.sync(order: order, context: context)
            return MutationResult(members: ["order": OrderView(record: synced.order)], ids: ["order": synced.order.id], userErrors: synced.userErrors)
        } replay: { ids in
            ["order": try await ids.uuid("order").asyncMap { try await services.orderStore.find(id: $0) }?.map(OrderView.init)]
        }

        mutation(&set, "createClientSession", services) { input, context in
            let ttl = input.int("ttlSeconds") ?? 3600
            let cap = try input.string("maxOrderAmount").map { text throws(UserError) in
                guard let value = Scalars.minorUnits(text) else { throw UserError(.invalidAmount, "maxOrderAmount must be MinorUnits", field: ["input", "maxOrderAmount"]) }
                return value
            }
            let minted = try await services.sessions.create(customerID: try input.requiredID("customerId", of: .customer), ttlSeconds: ttl,
                                                            maxOrderAmountMinor: cap, principal: context.principal)
            return MutationResult(members: ["session": SessionView(minted: minted)], ids: ["session": minted.id])
        } replay: { ids in
            // The token is never stored for replay: a fresh one for the same session.
            let minted = try await ids.uuid("session").asyncMap { try await services.sessions.remint(sessionID: $0) } ?? nil
            return ["session": minted.map(SessionView.init)]
        }

        mutation(&set, "revokeClientSession", services) { input, context in
            guard let text = input.string("sessionId"), let id = GlobalID(text, of: .clientSession) else {
                throw UserError(.notFound, "sessionId is not a ClientSession id", field: ["input", "sessionId"])
            }
            guard try await services.sessions.revoke(sessionID: id.uuid) else {
                throw UserError(.notFound, "no live session with this id", field: ["input", "sessionId"])
            }
            services.keys.forgetCachedPrincipals()
            return MutationResult(members: ["revoked": true], ids: ["session": id.uuid])
        } replay: { _ in ["revoked": true] }
    }

    /// The order, if the caller may act on it (a session: its customer's orders only).
    static func ownOrder(_ id: UUID, context: GatewayRequestContext, services: GatewayServices) async throws -> OrderRecord {
        guard let order = try await services.orderStore.find(id: id), context.principal.maySee(customerID: order.customerID) else {
            throw UserError(.notFound, "no such order", field: ["input", "orderId"])
        }
        return order
    }

    // MARK: The mutation runner

    /// What a mutation's body produced: payload members, the ids a replay rebuilds them from, user errors.
    struct MutationResult: Sendable {
        var members: [String: (any Sendable)?]
        var ids: [String: UUID?]
        var userErrors: [UserError] = []
        /// Keep the idempotency record even though a user error is retryable (the work was done: an order exists).
        var keepKey = false
    }

    /// Registers `name` with idempotency: the key from `input.idempotencyKey` or the header,
    /// a replay rebuilt from stored ids, user errors in the payload. `hashedInput` rewrites the
    /// input before its request hash is stored (a write-only secret is replaced by a keyed hash).
    static func mutation(
        _ set: inout ResolverSet, _ name: String, _ services: GatewayServices,
        hashedInput: (@Sendable (JSONObject) -> JSONObject)? = nil,
        body: @escaping @Sendable (InputReader, GatewayRequestContext) async throws -> MutationResult,
        replay: @escaping @Sendable (StoredIDs) async throws -> [String: (any Sendable)?]
    ) {
        mutation(&set, name, services, hashedInput: hashedInput, body: body, replayWithInput: { ids, _, _ in try await replay(ids) })
    }

    /// ``mutation(_:_:_:hashedInput:body:replay:)`` whose replay also gets the (same) input and the
    /// caller: for results that are never stored, such as a token minted afresh on every replay.
    static func mutation(
        _ set: inout ResolverSet, _ name: String, _ services: GatewayServices,
        hashedInput: (@Sendable (JSONObject) -> JSONObject)? = nil,
        body: @escaping @Sendable (InputReader, GatewayRequestContext) async throws -> MutationResult,
        replayWithInput replay: @escaping @Sendable (StoredIDs, InputReader, GatewayRequestContext) async throws -> [String: (any Sendable)?]
    ) {
        set.async("Mutation", name) { input in
            let context = try input.gateway
            let reader = InputReader(arguments: input.arguments)
            let key: String?
            switch IdempotencyKeys.key(input: reader.string("idempotencyKey"), header: context.idempotencyHeader) {
            case .success(let found): key = found
            case .failure(let error): return PayloadView(members: [:], userErrors: [error])
            }
            let scope = context.principal.idempotencyScope
            if let key {
                let hash = IdempotencyKeys.requestHash(operation: name, input: hashedInput?(reader.object) ?? reader.object)
                switch try await services.idempotency.begin(scope: scope, key: key, operation: name, hash: hash) {
                case .proceed: break
                case .replay(let ids):
                    if let code = ids["error"]?.stringValue.flatMap(UserErrorCode.init(rawValue:)) {
                        return PayloadView(members: [:], userErrors: [UserError(code, ids["message"]?.stringValue ?? code.rawValue)])
                    }
                    return PayloadView(members: compact(try await replay(StoredIDs(ids), reader, context)), userErrors: [])
                case .reused:
                    return PayloadView(members: [:], userErrors: [UserError(.idempotencyKeyReused, "this idempotency key was used with another input",
                                                                             field: ["input", "idempotencyKey"])])
                case .inUse:
                    return PayloadView(members: [:], userErrors: [UserError(.idempotencyKeyInUse, "a call with this idempotency key is still running",
                                                                             field: ["input", "idempotencyKey"], retryable: true)])
                }
            }
            do {
                let result = try await body(reader, context)
                if let key {
                    if result.userErrors.contains(where: \.retryable), !result.keepKey {
                        await services.idempotency.release(scope: scope, key: key)
                    } else {
                        try await services.idempotency.complete(scope: scope, key: key, resultIDs: StoredIDs.json(result.ids))
                    }
                }
                return PayloadView(members: compact(result.members), userErrors: result.userErrors)
            } catch let error as UserError {
                if let key {
                    if error.retryable { await services.idempotency.release(scope: scope, key: key) }
                    else { try await services.idempotency.complete(scope: scope, key: key, resultIDs: .object(["error": .string(error.code.rawValue), "message": .string(error.message)])) }
                }
                return PayloadView(members: [:], userErrors: [error])
            } catch {
                if let key { await services.idempotency.release(scope: scope, key: key) }
                throw error
            }
        }
    }

    private static func compact(_ members: [String: (any Sendable)?]) -> [String: any Sendable] {
        var out: [String: any Sendable] = [:]
        for (name, value) in members { if let value { out[name] = value } }
        return out
    }
}

/// The ids a completed mutation stored for its replay.
struct StoredIDs: Sendable {
    let value: JSONValue
    init(_ value: JSONValue) { self.value = value }

    func uuid(_ name: String) -> UUID? { value[name]?.stringValue.flatMap(UUID.init(uuidString:)) }

    static func json(_ ids: [String: UUID?]) -> JSONValue {
        var object = JSONObject()
        for name in ids.keys.sorted() { object.append(name, ids[name].flatMap { $0 }.map { .string($0.uuidString) } ?? .null) }
        return .object(object)
    }
}

extension UUID {
    /// The all-zero UUID, used as a marker.
    static let zero: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}

extension Optional {
    /// Maps with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

/// `ClientSession`.
struct SessionView: GraphQLFieldReadable {
    var minted: SessionService.Minted
    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": GlobalID(.clientSession, minted.id).description
        case "token": minted.token
        case "customer": CustomerView(record: minted.customer)
        case "expiresAt": minted.expiresAt.rfc3339
        case "maxOrderAmount": MoneyView(minorUnits: minted.maxOrderAmountMinor, currency: .inr)
        default: nil
        }
    }
}
