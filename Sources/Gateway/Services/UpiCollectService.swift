import Foundation
import PaymentsCore
import Postgres
import Providers

/// UPI collect requests to a VPA (flow F18, seed 002:L270-313), polled by PayQL instead of
/// every app screen: `requestUpiCollect` sends one collect and stores it; `upiCollect(id)`
/// answers from the database and, when a check is due, asks the provider once — whatever the
/// number of readers or instances (``UpiCollectPollGate`` in process, the row's poll lease
/// across processes, and a minimum interval between checks).
///
/// The seed's semantics: an answer that is PENDING stays PENDING whatever else came with it
/// (its "exception" — here an unknown outcome of the request — is recorded, never a failure,
/// and the request is never sent again); a status check that fails is recorded in
/// `lastCheckError`, never taken as the payment's result. A collect ends SUCCEEDED or FAILED
/// on the provider's word, or EXPIRED when PayQL stops waiting; the order itself moves only
/// through ``OrderService/sync(order:context:source:)`` (status from the provider).
struct UpiCollectService: Sendable {
    let store: UpiCollectStore
    let orders: OrderService
    let orderStore: OrderStore
    let providers: ProviderRegistry
    let settings: UpiCollectSettings
    let dataKeys: DataKeyring?
    let gate: UpiCollectPollGate

    /// Sends a collect for `order` to `vpa`. Malformed VPA, wrong provider, a final order or a
    /// collect already PENDING: a user error with nothing written.
    func request(order: OrderRecord, vpa rawVPA: String, context: GatewayRequestContext) async throws -> UpiCollectRecord {
        let vpa = try Self.validatedVPA(rawVPA)
        guard order.provider == .instamojo else {
            throw UserError(.capabilityNotSupported, "UPI collect requests are made for INSTAMOJO orders", field: ["input", "orderId"])
        }
        guard !order.status.isFinal else {
            throw UserError(.invalidState, "the order is \(order.status.rawValue)", field: ["input", "orderId"])
        }
        guard case .instamojo(let gatewayOrderID, _, _)? = order.checkout else {
            throw UserError(.invalidState, "the order has no Instamojo gateway order yet (it is being reconciled)", field: ["input", "orderId"])
        }
        guard let instamojo = providers.instamojo else { throw UserError(.noRoute, "INSTAMOJO is not configured", provider: .instamojo) }
        guard let claimed = try await store.insertPending(orderID: order.id, vpaMasked: Self.mask(vpa), vpaHash: dataKeys?.blindIndex(vpa.lowercased()),
                                                          lifetimeMilliseconds: settings.lifetime.wholeMilliseconds) else {
            throw UserError(.invalidState, "a UPI collect for this order is still PENDING; read it with upiCollect", field: ["input", "orderId"])
        }
        let firstCheck = settings.firstCheckDelay.wholeMilliseconds
        do {
            let sent = try await context.timingProvider { try await instamojo.requestUPICollect(gatewayOrderID: gatewayOrderID, vpa: vpa) }
            return try await store.recordSubmission(
                id: claimed.id, providerPaymentID: sent.paymentID, statusURL: sent.statusURL, statusCode: sent.rawStatus,
                message: sent.message, checkError: nil, delayMilliseconds: sent.status == .pending ? firstCheck : 0)
        } catch let error as ProviderError {
            switch error.code.outcome {
            case .notDone, .refused:
                try await OutageRetry.run { try await store.deleteUnsent(id: claimed.id) }
                if error.code.outcome == .refused, error.field == "virtual_address" {
                    throw UserError(.invalidVPA, "INSTAMOJO refused the VPA: \(error.message)", field: ["input", "vpa"], provider: .instamojo)
                }
                throw UserError.provider(error)
            case .unknown:
                // The request may have reached the customer's UPI app: the collect stays PENDING,
                // is never sent again, and the order's payments tell what became of it.
                return try await OutageRetry.run {
                    try await store.recordSubmission(id: claimed.id, providerPaymentID: nil, statusURL: nil, statusCode: nil, message: nil,
                                                     checkError: "request: \(error.code.label): \(error.message)", delayMilliseconds: firstCheck)
                }
            }
        }
    }

    /// The collect as stored, checked at the provider first when a check is due (one check for
    /// all concurrent readers; a reader waits for it at most ``UpiCollectSettings/readerWait``).
    func read(id: UUID) async throws -> UpiCollectRecord? {
        guard let record = try await store.find(id: id) else { return nil }
        guard record.isPending, Self.isDue(record) else { return record }
        await gate.checkOnce(id: id, deadline: settings.readerWait) { await checkIfClaimed(id: id) }
        return try await store.find(id: id) ?? record
    }

    /// Whether a check is due by this instance's clock (the database decides for sure).
    static func isDue(_ record: UpiCollectRecord, now: Date = Date()) -> Bool {
        let current = PostgresTimestamp(now)
        return record.nextCheckAt <= current || record.expiresAt <= current
    }

    /// Checks `id` at the provider if this caller wins its lease; errors are recorded on the row.
    func checkIfClaimed(id: UUID) async {
        guard let claimed = try? await store.claimPoll(id: id, leaseMilliseconds: settings.pollLease.wholeMilliseconds) else { return }
        await check(claimed)
    }

    /// Checks up to `limit` due collects nobody is reading (the reconciler's loop calls this), so a
    /// collect still ends and notifies its subscribers when no app asks.
    func checkDue(limit: Int) async {
        guard let due = try? await store.claimDue(limit: limit, leaseMilliseconds: settings.pollLease.wholeMilliseconds), !due.isEmpty else { return }
        await withTaskGroup(of: Void.self) { group in
            for collect in due { group.addTask { await check(collect) } }
        }
    }

    /// One upstream check of a claimed collect, its outcome written (and the lease released).
    func check(_ collect: UpiCollectRecord) async {
        let context = GatewayRequestContext(principal: Self.principal, idempotencyHeader: nil)
        let interval = settings.minimumCheckInterval.wholeMilliseconds
        var result = UpiCollectStore.PollResult(status: UpiCollectStore.pending, nextCheckDelayMilliseconds: interval)
        do {
            let observed = try await observe(collect, context: context)
            result.status = observed.status
            result.providerPaymentID = observed.paymentID
            result.providerStatusCode = observed.code
            result.providerMessage = observed.message
        } catch let error as ProviderError {
            // A failed check is not a payment result (seed: PaymentError → "Error while making UPI Status Check request").
            result.checkError = "\(error.code.label): \(error.message)"
        } catch {
            result.checkError = "status check: \(error)"
        }
        let finished: UpiCollectRecord?
        do {
            finished = try await OutageRetry.run { try await store.finishPoll(id: collect.id, result) }
        } catch {
            // Not written: the lease ends by itself and the next reader checks again.
            return
        }
        guard let finished, finished.status == "SUCCEEDED" || finished.status == "FAILED" else { return }
        // The order follows only through the verified path: the provider's own order and payments.
        if let order = try? await orderStore.find(id: finished.orderID) {
            _ = try? await orders.sync(order: order, context: context, source: "PROVIDER_RESPONSE")
        }
        _ = try? await store.linkPayment(id: finished.id)
    }

    /// What the provider says of the collect now.
    private func observe(_ collect: UpiCollectRecord, context: GatewayRequestContext) async throws
        -> (status: String, paymentID: String?, code: String?, message: String?) {
        guard let instamojo = providers.instamojo else { throw UserError(.noRoute, "INSTAMOJO is not configured") }
        if let paymentID = collect.providerPaymentID, let statusURL = collect.statusURL {
            let answer = try await context.timingProvider {
                try await instamojo.upiCollectStatus(UPICollect(paymentID: paymentID, status: .pending, rawStatus: collect.providerStatusCode ?? "",
                                                                message: nil, statusURL: statusURL))
            }
            return (Self.collectStatus(answer.status), answer.paymentID, answer.rawStatus, answer.message)
        }
        // The request's answer was lost: the collect is the order's UPI payment the provider made
        // after it (never one another collect of this order already names).
        guard let order = try await orderStore.find(id: collect.orderID) else { return (UpiCollectStore.pending, nil, nil, nil) }
        let payments = try await context.timingProvider { try await instamojo.fetchGatewayOrderPayments(transactionID: order.receipt) }
        let others = Set(try await store.list(orderIDs: [order.id])[order.id, default: []].filter { $0.id != collect.id }.compactMap(\.providerPaymentID))
        let found = if let known = collect.providerPaymentID {
            payments.first { $0.id == known }
        } else {
            payments.last { $0.method?.uppercased() == "UPI" && !others.contains($0.id) }
        }
        guard let payment = found else { return (UpiCollectStore.pending, nil, nil, nil) }
        return (Self.collectStatus(payment.status), payment.id, nil, payment.failure?.description)
    }

    /// The provider's payment status as a collect status: only captured and failed are final.
    static func collectStatus(_ status: PaymentStatus) -> String {
        switch status {
        case .captured: "SUCCEEDED"
        case .failed, .cancelled: "FAILED"
        // Authorised, refunded or undocumented: not a collect outcome PayQL can state; keep asking.
        case .created, .pending, .authorized, .refunded, .partiallyRefunded, .unknown: UpiCollectStore.pending
        }
    }

    /// The system caller of background checks (never a client).
    private static let principal = Principal(apiKeyID: UUID(uuid: UUID.zero), scopes: [.ops], session: nil)

    // MARK: VPA

    /// `name@handle`: 2–256 of letters, digits, `.`, `-`, `_`, then a handle of 2–64 letters or
    /// digits (NPCI's form; seed 002:L272). Surrounding spaces are dropped.
    static func validatedVPA(_ raw: String) throws(UserError) -> String {
        let vpa = raw.trimmingCharacters(in: .whitespaces)
        let parts = vpa.split(separator: "@", omittingEmptySubsequences: false)
        let valid = parts.count == 2
            && (2...256).contains(parts[0].count)
            && parts[0].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }
            && (2...64).contains(parts[1].count)
            && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        guard valid else { throw UserError(.invalidVPA, "a VPA looks like name@handle (e.g. asha@okaxis)", field: ["input", "vpa"]) }
        return vpa
    }

    /// "ab***@okaxis": the first two characters of the name (one when it has two), the handle.
    static func mask(_ vpa: String) -> String {
        let parts = vpa.split(separator: "@", maxSplits: 1)
        guard parts.count == 2 else { return "***" }
        let keep = parts[0].count > 2 ? 2 : 1
        return String(parts[0].prefix(keep)) + "***@" + parts[1]
    }
}
