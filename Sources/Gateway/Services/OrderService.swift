import Crypto
import Foundation
import PaymentsCore
import Postgres
import Providers

/// Orders: the create-at-provider protocol, verification, sync and reconciliation.
///
/// Create-at-provider (issue "payments API part 1"): the order row with its unique
/// `receipt` is committed before the provider is called; the provider gets the receipt
/// (Razorpay `receipt`, Cashfree `order_id` + `x-idempotency-key`, Instamojo
/// `transaction_id`). When the provider certainly did nothing (unreachable, throttled) a routed
/// order fails over: the row moves to the next provider of its routing decision (timeline
/// FAILED_OVER) and the call is made there; with no provider left, or when the provider refused,
/// the row is removed. When the outcome is unknown it stays with `needsReconciliation` at that
/// provider and is found again by receipt — never failed over — so a provider order is never
/// duplicated nor forgotten.
struct OrderService: Sendable {
    let orders: OrderStore
    let payments: PaymentStore
    let customers: CustomerStore
    let providers: ProviderRegistry
    let configuration: GatewayConfiguration
    let bankAccounts: BankAccountService

    /// `createOrder`'s input, decoded.
    struct CreateRequest: Sendable {
        var amountMinor: Int64
        var currency: String
        var receipt: String?
        var customerID: UUID?
        var provider: ProviderName?
        var flow: String
        var method: String?
        var description: String?
        var notes: [(key: String, value: String)]?
        var returnURL: String?
        var expiresAt: String?
        /// TPV: the whitelisted account that must pay.
        var tpvBankAccountID: UUID?
    }

    /// Routing for orders without a named provider (rules in `routing_rules`, see ``ProviderRouter``).
    var routing: RoutingService { RoutingService(store: RoutingStore(pool: orders.pool), customers: customers, providers: providers) }

    /// The provider an order goes to and why: the one asked for (checked here, no failover), else the
    /// routing decision (API README, "Routing"); NO_ROUTE when no provider can serve.
    func route(_ request: CreateRequest, customer: CustomerRecord?) async throws -> (provider: ProviderName, decision: RoutingDecision) {
        if let provider = request.provider {
            guard provider != .setu else {
                throw UserError(.capabilityNotSupported, "SETU collects no money itself; pay a bill through startBillPayment", field: ["input", "provider"])
            }
            guard providers.isConfigured(provider) else { throw UserError(.noRoute, "\(provider.graphQLName) is not configured", field: ["input", "provider"]) }
        }
        let decision = try await routing.decide(
            RoutingService.Request(amountMinor: request.amountMinor, currency: request.currency, flow: request.flow, method: request.method,
                                   customerID: customer?.id, hasReturnURL: request.returnURL != nil, provider: request.provider, claimsTrial: true),
            customer: customer)
        guard let provider = decision.provider else { throw UserError(.noRoute, decision.reason, field: ["input", "flow"]) }
        return (provider, decision)
    }

    func create(_ request: CreateRequest, context: GatewayRequestContext) async throws -> OrderRecord {
        let principal = context.principal
        guard let currency = Currency.known(request.currency), currency == .inr else {
            throw UserError(.unsupportedCurrency, "only INR is supported", field: ["input", "amount", "currency"])
        }
        guard request.amountMinor > 0 else { throw UserError(.invalidAmount, "amount must be more than 0", field: ["input", "amount", "amount"]) }
        let amount = Amount(minorUnits: request.amountMinor, currency: currency)
        if let session = principal.session, request.amountMinor > session.maxOrderAmountMinor {
            throw UserError(.amountOutOfRange, "a client session may create orders of at most \(DecimalText.format(minorUnits: session.maxOrderAmountMinor, exponent: 2)) INR",
                            field: ["input", "amount", "amount"])
        }
        guard ["STANDARD", "CARD_COMPONENT", "CUSTOM_UI", "HOSTED_PAGE", "TPV"].contains(request.flow) else {
            throw UserError(.capabilityNotSupported, "the \(request.flow) flow is not available yet", field: ["input", "flow"])
        }
        var customer: CustomerRecord?
        if let customerID = request.customerID {
            customer = try await customers.find(id: customerID)
            guard customer != nil else { throw UserError(.notFound, "no such customer", field: ["input", "customerId"]) }
        }
        var (provider, decision) = try await route(request, customer: customer)
        if let rules = providers.orderAmountRules(provider) {
            do { try rules.check(amount) } catch {
                throw UserError(.amountOutOfRange, "\(provider.graphQLName): \(error)", field: ["input", "amount", "amount"], provider: provider)
            }
        }
        let receipt = try request.receipt.map { r throws(UserError) in try Validation.receipt(r, field: ["input", "receipt"]) } ?? Self.generatedReceipt()
        let description = try Validation.text(request.description, field: ["input", "description"])
        let notes = try Validation.notes(request.notes, field: ["input", "notes"]) ?? Notes()
        if provider == .instamojo {
            // Gateway orders need the buyer's name, email and phone and a return URL (decision 6).
            if customer?.name == nil { throw UserError(.required, "INSTAMOJO orders need a customer with a name", field: ["input", "customerId"]) }
            if customer?.email == nil { throw UserError(.required, "INSTAMOJO orders need a customer with an email", field: ["input", "customerId"]) }
            if customer?.phone == nil { throw UserError(.required, "INSTAMOJO orders need a customer with a phone", field: ["input", "customerId"]) }
            if request.returnURL == nil { throw UserError(.required, "INSTAMOJO orders need a returnUrl", field: ["input", "returnUrl"]) }
        }
        let tpv = try await tpvAccount(request, customer: customer, provider: provider)
        let pending: OrderRecord
        do {
            pending = try await orders.insertPending(OrderStore.NewOrder(
                customerID: customer?.id, provider: provider, amount: amount, receipt: receipt, method: request.method, flow: request.flow,
                bankAccountID: tpv?.account.id, notes: notes, description: description, returnURL: request.returnURL,
                createdBy: principal.session == nil ? .secretKey : .clientSession, apiKeyID: principal.apiKeyID,
                clientSessionID: principal.session?.id, expiresAt: request.expiresAt, routing: decision))
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw UserError(.alreadyExists, "an order with receipt \(receipt) exists", field: ["input", "receipt"])
        }
        let providerRequest = CreateOrderRequest(
            reference: receipt, amount: amount,
            customer: customer.map { CustomerDetails(id: $0.id.uuidString.lowercased(), name: $0.name, email: $0.email, phone: Self.nationalPhone($0.phone)) },
            description: description, method: request.method.flatMap { PaymentMethodKind(rawValue: $0.lowercased()) },
            tpvBankAccount: tpv?.details, returnURL: request.returnURL, notes: notes.dictionary, idempotencyKey: receipt)
        // From here on the provider may have done the work: what it said is written even across a short
        // database outage (OutageRetry), so an order acknowledged to the client is stored.
        var next = decision.failoverOrder[...]
        /// The provider may have the order: look it up by receipt once now; the reconciler keeps trying.
        /// Never failed over: a second provider's order could be paid twice.
        func unknownOutcome(_ why: String) async throws -> OrderRecord {
            if let found = try? await context.timingProvider({ try await findAtProvider(provider, receipt: receipt) }),
               Self.isAnswer(found, receipt: receipt, amount: amount) {
                return try await OutageRetry.run {
                    try await orders.markCreated(orderID: pending.id, providerOrderID: found.id, providerStatus: found.rawStatus,
                                                 checkout: checkout(for: found, provider: provider))
                }
            }
            return try await OutageRetry.run { try await orders.markNeedsReconciliation(orderID: pending.id, message: "create: \(why)") }
        }
        while true {
            let created: ProviderOrder
            do {
                created = try await context.timingProvider { try await createAtProvider(provider, providerRequest) }
            } catch let error as ProviderError {
                switch error.code.outcome {
                case .notDone:
                    // Certainly nothing at `provider`: the next routed provider may take it (never after an unknown outcome).
                    if let to = next.popFirst() {
                        let code = UserError.provider(error).code.rawValue
                        let message = "\(provider.graphQLName) → \(to.graphQLName): \(code) (\(error.code.label))"
                        decision.failovers.append(.init(from: provider, to: to, errorCode: code, message: message, at: PostgresTimestamp(Date())))
                        let moved = try await OutageRetry.run {
                            try await routing.store.failOver(orderID: pending.id, from: provider, to: to, decision: decision, message: message)
                        }
                        guard moved else { throw GatewayRequestError.internal("the order changed while failing over") }
                        provider = to
                        continue
                    }
                    try await OutageRetry.run { try await orders.deleteUncreated(orderID: pending.id) }
                    throw Self.masked(UserError.provider(error), tpv: tpv?.details)
                case .refused:
                    try await OutageRetry.run { try await orders.deleteUncreated(orderID: pending.id) }
                    throw Self.masked(UserError.provider(error), tpv: tpv?.details)
                case .unknown:
                    return try await unknownOutcome(error.code.label)
                }
            }
            guard Self.isAnswer(created, receipt: receipt, amount: amount) else {
                return try await unknownOutcome(Self.aboutAnotherOrder(created))
            }
            return try await OutageRetry.run {
                try await orders.markCreated(orderID: pending.id, providerOrderID: created.id, providerStatus: created.rawStatus,
                                             checkout: checkout(for: created, provider: provider))
            }
        }
    }

    private func createAtProvider(_ provider: ProviderName, _ request: CreateOrderRequest) async throws -> ProviderOrder {
        switch provider {
        case .razorpay: try await required(providers.razorpay, provider).createOrder(request)
        case .cashfree: try await required(providers.cashfree, provider).createOrder(request)
        case .instamojo: try await required(providers.instamojo, provider).createGatewayOrder(request)
        case .setu: throw UserError(.capabilityNotSupported, "SETU has no orders")
        }
    }

    /// Whether `order` is the provider speaking of the order PayQL asked for: the reference PayQL sent
    /// echoed (Razorpay's `receipt`, Cashfree's `order_id`, Instamojo's `transaction_id`: each echoes it
    /// when it creates or shows a gateway order) and the amount. Anything else — a provider's bug, a
    /// proxy's stray page — is no answer: the outcome is unknown, and the order is found again by receipt
    /// rather than stored with an id that is not its own (`HostileProviderAnswerTests`).
    static func isAnswer(_ order: ProviderOrder, receipt: String, amount: Amount) -> Bool {
        order.reference == receipt && order.amount == amount && isOrderID(order.id, provider: order.provider)
    }

    /// What an answer that is not ``isAnswer(_:receipt:amount:)`` was, for the order's message.
    static func aboutAnotherOrder(_ order: ProviderOrder) -> String {
        "an answer about another order (\(order.reference.map { "reference \($0)" } ?? "no reference"))"
    }

    /// An order id `provider` could have given: 1 to 200 bytes of printable ASCII without spaces (Razorpay's
    /// `order_…`, Cashfree's `[A-Za-z0-9_-]` — PayQL's own receipt, echoed —, Instamojo's ids all are), and for
    /// Razorpay its entity prefix `order_` (every id of Razorpay's reference and samples carries its
    /// entity's prefix: `order_`, `pay_`, `rfnd_`). Anything else — empty, a replaced NUL, a status word, a
    /// whole page — is not stored as the order's provider id.
    static func isOrderID(_ id: String, provider: ProviderName) -> Bool {
        let bytes = id.utf8
        guard (1...200).contains(bytes.count), bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else { return false }
        return provider != .razorpay || id.hasPrefix("order_")
    }

    /// The provider's order for `receipt`, when it has one (nil: it certainly has none).
    func findAtProvider(_ provider: ProviderName, receipt: String) async throws -> ProviderOrder? {
        do {
            switch provider {
            case .razorpay: return try await required(providers.razorpay, provider).findOrders(receipt: receipt).first
            case .cashfree: return try await required(providers.cashfree, provider).fetchOrder(id: receipt)
            case .instamojo: return try await required(providers.instamojo, provider).fetchGatewayOrder(transactionID: receipt)
            case .setu: return nil
            }
        } catch let error as ProviderError where error.code == .notFound {
            return nil
        }
    }

    private func required<Adapter>(_ adapter: Adapter?, _ provider: ProviderName) throws(UserError) -> Adapter {
        guard let adapter else { throw UserError(.noRoute, "\(provider.graphQLName) is not configured", provider: provider) }
        return adapter
    }

    private func checkout(for order: ProviderOrder, provider: ProviderName) -> CheckoutPayload {
        let environment = providers.environment(provider).rawValue
        switch (provider, order.checkout) {
        case (.cashfree, .cashfree(let session)):
            return .cashfree(orderID: order.id, paymentSessionID: session, environment: environment)
        case (.instamojo, .instamojo(let url, let gateway)):
            return .instamojo(gatewayOrderID: gateway ?? order.id, paymentURL: url, environment: environment)
        case (.instamojo, _):
            return .instamojo(gatewayOrderID: order.id, paymentURL: nil, environment: environment)
        default:
            return .razorpay(keyID: providers.razorpay?.configuration.keyID ?? "", orderID: order.id, environment: environment)
        }
    }

    /// `pq_` and 20 random characters of `[a-z0-9]`: fits every provider's reference rules.
    static func generatedReceipt() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let bytes = (try? Crypto.randomBytes(20)) ?? []
        precondition(bytes.count == 20, "the system's random source failed")
        return "pq_" + String(bytes.map { alphabet[Int($0) % alphabet.count] })
    }

    /// The 10 national digits of an Indian E.164 number (Cashfree wants them); other numbers unchanged.
    static func nationalPhone(_ phone: String?) -> String? {
        guard let phone else { return nil }
        return phone.hasPrefix("+91") && phone.count == 13 ? String(phone.dropFirst(3)) : phone
    }

    // MARK: Verification and sync

    /// What a verification or sync found.
    struct Verified: Sendable {
        var order: OrderRecord
        var payment: PaymentRecord?
        var verified: Bool
        var userErrors: [UserError]
    }

    /// `verifyOrderPayment` for Razorpay: the signature over the *stored* order id, then the payment fetched.
    func verifyRazorpay(order: OrderRecord, paymentID: String, orderID: String, signature: String,
                        context: GatewayRequestContext) async throws -> Verified {
        guard let razorpay = providers.razorpay else { throw UserError(.noRoute, "RAZORPAY is not configured", provider: .razorpay) }
        guard let stored = order.providerOrderID, stored == orderID else {
            throw UserError(.signatureMismatch, "razorpayOrderId is not this order's provider order", field: ["input", "razorpay", "razorpayOrderId"])
        }
        guard razorpay.verifyPaymentSignature(orderID: stored, paymentID: paymentID, signature: signature).isValid else {
            throw UserError(.signatureMismatch, "the checkout signature does not match", field: ["input", "razorpay", "razorpaySignature"])
        }
        let fetched: ProviderPayment
        do {
            fetched = try await context.timingProvider { try await razorpay.fetchPayment(id: paymentID) }
        } catch let error as ProviderError {
            // Signed but not yet confirmed by a fetch: the reconciler asks again.
            _ = try await orders.markNeedsReconciliation(orderID: order.id, message: "verify: payment fetch \(error.code.label)")
            let current = try await orders.find(id: order.id) ?? order
            return Verified(order: current, payment: nil, verified: false, userErrors: [UserError.provider(error)])
        }
        guard fetched.orderID == stored else {
            throw UserError(.signatureMismatch, "the payment belongs to another order", field: ["input", "razorpay", "razorpayPaymentId"])
        }
        let (payment, updated) = try await orders.pool.withTransaction { connection in
            guard let locked = try await OrderStore.lock(orderID: order.id, on: connection) else { throw GatewayRequestError.internal("order vanished") }
            return try await PaymentStore.record(fetched, for: locked, verification: .checkoutSignature, source: "PROVIDER_RESPONSE", on: connection)
        }
        let confirmed = StatusTransitions.isCaptured(payment.status)
        return Verified(order: updated, payment: payment, verified: confirmed,
                        userErrors: confirmed ? [] : [UserError(.paymentNotConfirmed, "the payment is \(payment.status) at RAZORPAY", provider: .razorpay)])
    }

    /// Re-reads the order and its payments from the provider and applies what it says.
    func sync(order: OrderRecord, context: GatewayRequestContext, source: String = "PROVIDER_RESPONSE") async throws -> Verified {
        guard let providerOrderID = order.providerOrderID ?? (order.needsReconciliation ? order.receipt : nil) else {
            throw UserError(.invalidState, "the order has no provider order", field: ["input", "orderId"])
        }
        let fetchedOrder: ProviderOrder?
        let fetchedPayments: [ProviderPayment]
        do {
            (fetchedOrder, fetchedPayments) = try await context.timingProvider {
                try await fetch(order: order, providerOrderID: providerOrderID)
            }
        } catch let error as ProviderError {
            return Verified(order: order, payment: nil, verified: false, userErrors: [UserError.provider(error)])
        }
        var (updated, lastPayment) = try await orders.pool.withTransaction { connection in
            guard var locked = try await OrderStore.lock(orderID: order.id, on: connection) else { throw GatewayRequestError.internal("order vanished") }
            if let fetchedOrder, locked.providerOrderID == nil {
                // Found by receipt after a lost answer: the client SDK's checkout is written too.
                let checkout = checkout(for: fetchedOrder, provider: order.provider)
                _ = try await connection.query("""
                    UPDATE orders SET provider_order_id = \(fetchedOrder.id), client_payload = \(checkout.jsonb), needs_reconciliation = false,
                        updated_at = now() WHERE id = \(order.id)
                    """)
                locked.providerOrderID = fetchedOrder.id
                locked.checkout = checkout
                locked.needsReconciliation = false
            }
            var last: PaymentRecord?
            for payment in fetchedPayments {
                (last, locked) = try await PaymentStore.record(payment, for: locked, verification: .providerStatusCheck, source: source, on: connection)
            }
            if let fetchedOrder, let proposed = OrderStatusName(rawValue: fetchedOrder.status.name) {
                // A provider's "paid" without a payment we could read still counts: the provider confirmed it.
                locked = try await OrderStore.applyStatus(order: locked, proposed: proposed, providerStatus: fetchedOrder.rawStatus,
                                                          source: source, on: connection)
            }
            _ = try await connection.query("UPDATE orders SET last_synced_at = now() WHERE id = \(order.id)")
            return (locked, last)
        }
        // The order's PENDING refunds too (docs/api.md, "Refunds, captures and cancellations").
        if try await RefundReconciliation(pool: orders.pool, providers: providers).refresh(order: updated, context: context) > 0 {
            updated = try await orders.find(id: order.id) ?? updated
        }
        if fetchedOrder == nil, order.providerOrderID == nil {
            // The provider never got it: nothing to reconcile any more.
            return Verified(order: updated, payment: nil, verified: false,
                            userErrors: [UserError(.notFound, "the provider has no order for receipt \(order.receipt)", provider: order.provider)])
        }
        return Verified(order: updated, payment: lastPayment, verified: updated.status == .paid, userErrors: [])
    }

    /// The provider's order and its payments for `order`; an answer about another order (``isAnswer(_:receipt:amount:)``,
    /// or an id other than the one stored) is a malformed answer, never written over the order.
    private func fetch(order: OrderRecord, providerOrderID: String) async throws -> (ProviderOrder?, [ProviderPayment]) {
        let (found, payments) = try await fetchUnchecked(order: order, providerOrderID: providerOrderID)
        if let found, !Self.isAnswer(found, receipt: order.receipt, amount: order.amount)
            || (order.providerOrderID != nil && found.id != order.providerOrderID) {
            throw ProviderError(.malformedResponse, provider: order.provider, operation: "syncOrder",
                                message: Self.aboutAnotherOrder(found))
        }
        return (found, payments)
    }

    private func fetchUnchecked(order: OrderRecord, providerOrderID: String) async throws -> (ProviderOrder?, [ProviderPayment]) {
        switch order.provider {
        case .razorpay:
            guard let razorpay = providers.razorpay else { throw UserError(.noRoute, "RAZORPAY is not configured") }
            let found = order.providerOrderID == nil ? try await findAtProvider(.razorpay, receipt: order.receipt)
                                                     : try await razorpay.fetchOrder(id: providerOrderID)
            guard let found else { return (nil, []) }
            return (found, try await razorpay.fetchPayments(orderID: found.id))
        case .cashfree:
            guard let cashfree = providers.cashfree else { throw UserError(.noRoute, "CASHFREE is not configured") }
            guard let found = try await findAtProvider(.cashfree, receipt: order.receipt) else { return (nil, []) }
            return (found, try await cashfree.fetchPayments(orderID: found.id))
        case .instamojo:
            guard let instamojo = providers.instamojo else { throw UserError(.noRoute, "INSTAMOJO is not configured") }
            guard let found = try await findAtProvider(.instamojo, receipt: order.receipt) else { return (nil, []) }
            // The gateway order's payments (a refund needs the payment id).
            return (found, try await instamojo.fetchGatewayOrderPayments(transactionID: order.receipt))
        case .setu:
            return (nil, [])
        }
    }
}
