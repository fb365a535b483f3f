import Foundation
import GraphQL
import JSON
import PaymentsCore
import Postgres

/// Setu bill pay in the schema: `createBillPayLink`, `startBillPayment`, `billPayment`, `billPayments`,
/// the `BillPayLink` / `BillPayment` fields that load rows (`BillPayLink.billFetches` among them), `Order.billPayment` and `node(id:)` for both types.
enum BillPayResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        MutationResolvers.mutation(&set, "createBillPayLink", services) { input, context in
            let link = try await services.billPay.createLink(BillPayService.LinkRequest(
                mobileNumber: try input.requiredString("mobileNumber"), customerID: try input.id("customerId", of: .customer),
                category: input.string("category"), billerID: input.string("billerId"),
                billParameters: pairs(input.object["billParameters"], name: "name"), additionalInfo: pairs(input.object["additionalInfo"], name: "key") ?? [],
                redirectTo: input.string("redirectTo"), shortLink: input.string("shortLink")), context: context)
            return MutationResolvers.MutationResult(members: ["billPayLink": BillPayLinkView(record: link)], ids: ["link": link.id])
        } replay: { ids in
            ["billPayLink": try await ids.uuid("link").asyncMap { try await services.billPayStore.links(ids: [$0])[$0] }?.map(BillPayLinkView.init)]
        }

        MutationResolvers.mutation(&set, "startBillPayment", services) { input, context in
            guard let data = input.object["initiatePayment"]?.objectValue else { throw UserError.required("initiatePayment") }
            let mode = try input.string("paymentMode").map { name throws(UserError) in
                guard let mode = BillPaymentModes.setuMode(graphQLName: name) else {
                    throw UserError(.validationFailed, "unknown paymentMode \(name)", field: ["input", "paymentMode"])
                }
                return mode
            }
            let started = try await services.billPay.start(BillPayService.StartRequest(
                data: data, linkID: try input.id("billPayLinkId", of: .billPayLink), customerID: try input.id("customerId", of: .customer),
                provider: input.provider("provider"), paymentMode: mode, returnURL: input.string("returnUrl")), context: context)
            return MutationResolvers.MutationResult(
                members: ["billPayment": BillPaymentView(record: started.billPayment), "order": started.order.map(OrderView.init)],
                ids: ["billPayment": started.billPayment.id, "order": started.order?.id], userErrors: started.userErrors, keepKey: true)
        } replay: { ids in
            let payment = try await ids.uuid("billPayment").asyncMap { try await services.billPayStore.payments(ids: [$0])[$0] } ?? nil
            let order = try await ids.uuid("order").asyncMap { try await services.orderStore.find(id: $0) } ?? nil
            return ["billPayment": payment.map(BillPaymentView.init), "order": order.map(OrderView.init)]
        }

        MutationResolvers.mutation(&set, "resendBillPaymentConfirmation", services) { input, _ in
            let bill = try await services.billConfirmations.resend(billPaymentID: try input.requiredID("billPaymentId", of: .billPayment))
            return MutationResolvers.MutationResult(members: ["billPayment": BillPaymentView(record: bill)], ids: ["billPayment": bill.id])
        } replay: { ids in
            ["billPayment": try await ids.uuid("billPayment").asyncMap { try await services.billPayStore.payments(ids: [$0])[$0] }?.map(BillPaymentView.init)]
        }

        set.async("Query", "billPayment") { input in
            let principal = try input.gateway.principal
            let record: BillPaymentRecord?
            if let text = input[argument: "id"]?.stringValue {
                guard let id = GlobalID(text, of: .billPayment) else { return nil }
                record = try await services.billPayStore.payments(ids: [id.uuid])[id.uuid]
            } else if let setuOrderID = input[argument: "setuOrderId"]?.stringValue {
                record = try await services.billPayStore.payment(setuOrderID: setuOrderID)
            } else {
                throw GatewayRequestError.badInput("billPayment needs id or setuOrderId")
            }
            guard let record, principal.maySee(customerID: record.customerID) else { return nil }
            return BillPaymentView(record: record)
        }
        set.async("Query", "billPayments") { input in
            let page = try PageRequest(first: input[argument: "first"]?.intValue, after: input[argument: "after"]?.stringValue,
                                       order: input[argument: "order"]?.stringValue)
            let reader = InputReader(input[argument: "filter"]?.objectValue ?? JSONObject(), path: ["filter"])
            let nothing = UUID(uuid: UUID.zero)
            let filter = BillPayStore.Filter(
                statuses: reader.strings("status") ?? [], setuOrderID: reader.string("setuOrderId"),
                customerID: reader.string("customerId").map { GlobalID($0, of: .customer)?.uuid ?? nothing },
                confirmationStatuses: reader.strings("confirmationStatus") ?? [],
                createdAfter: reader.string("createdAfter"), createdBefore: reader.string("createdBefore"))
            let rows = try await services.billPayStore.list(filter: filter, after: page.after, limit: page.first, newestFirst: page.newestFirst)
            return ConnectionView(rows: rows, limit: page.first, hadCursor: page.after != nil, node: { BillPaymentView(record: $0) },
                                  cursor: { KeysetCursor(createdAt: $0.createdAt, id: $0.id) })
        }

        set.sync("BillPayLink", "customer") { input in
            guard let link = input.source as? BillPayLinkView, let id = link.record.customerID else { return nil }
            return ObjectResolvers.customerLoader(input, services).load(id)
        }
        set.sync("BillPayLink", "billPayments") { input in
            guard let link = input.source as? BillPayLinkView else { return [] as [any Sendable] }
            return input.loaders.loader("linkBillPayments") {
                BatchLoader<UUID, [any Sendable]> { ids in
                    let found = try await services.billPayStore.payments(linkIDs: ids)
                    return ids.map { (found[$0] ?? []).map(BillPaymentView.init) as [any Sendable] }
                }
            }.load(link.record.id)
        }
        set.sync("BillPayLink", "billFetches") { input in
            guard let link = input.source as? BillPayLinkView else { return [] as [any Sendable] }
            return input.loaders.loader("linkBillFetches") {
                BatchLoader<UUID, [any Sendable]> { ids in
                    let found = try await BillFetchStore(pool: services.pool).fetches(linkIDs: ids)
                    return ids.map { (found[$0] ?? []).map(BillFetchView.init) as [any Sendable] }
                }
            }.load(link.record.id)
        }
        set.sync("BillPayment", "billPayLink") { input in
            guard let payment = input.source as? BillPaymentView, let id = payment.record.billPayLinkID else { return nil }
            return input.loaders.loader("billPayLinks") {
                BatchLoader<UUID, BillPayLinkView> { ids in
                    let found = try await services.billPayStore.links(ids: ids)
                    return ids.map { found[$0].map(BillPayLinkView.init) }
                }
            }.load(id)
        }
        set.sync("BillPayment", "customer") { input in
            guard let payment = input.source as? BillPaymentView, let id = payment.record.customerID else { return nil }
            return ObjectResolvers.customerLoader(input, services).load(id)
        }
        set.sync("BillPayment", "order") { input in
            guard let payment = input.source as? BillPaymentView, let id = payment.record.orderID else { return nil }
            return ObjectResolvers.orderLoader(input, services).load(id)
        }
        set.sync("BillPayment", "confirmation") { input in
            guard let payment = input.source as? BillPaymentView else { return nil }
            return input.loaders.loader("billConfirmations") {
                BatchLoader<UUID, BillConfirmationView> { ids in
                    let found = try await services.billPayStore.confirmations(billPaymentIDs: ids)
                    return ids.map { found[$0].map { BillConfirmationView(record: $0) } }
                }
            }.load(payment.record.id)
        }
        set.async("BillPayment", "refunds") { input in
            guard let payment = input.source as? BillPaymentView, let orderID = payment.record.orderID else { return [] as [any Sendable] }
            return try await services.paymentStore.refunds(orderIDs: [orderID])[orderID, default: []].map(RefundView.init) as [any Sendable]
        }
        set.sync("Order", "billPayment") { input in
            guard let order = input.source as? OrderView else { return nil }
            return input.loaders.loader("orderBillPayments") {
                BatchLoader<UUID, BillPaymentView> { ids in
                    let found = try await services.billPayStore.payments(orderIDs: ids)
                    return ids.map { found[$0].map(BillPaymentView.init) }
                }
            }.load(order.record.id)
        }
    }

    /// `[BillParameterInput!]` / `[KeyValueInput!]` as pairs; nil when absent.
    private static func pairs(_ value: JSONValue?, name: String) -> [BillPayLinkRecord.BillParameter]? {
        guard let items = value?.arrayValue else { return nil }
        return items.compactMap { item in
            guard let key = item[name]?.stringValue, let value = item["value"]?.stringValue else { return nil }
            return BillPayLinkRecord.BillParameter(name: key, value: value)
        }
    }

    /// `node(id:)` for BillPayLink and BillPayment ids (when the caller may see the customer).
    static func node(_ id: GlobalID, principal: Principal, services: GatewayServices) async throws -> (any Sendable)? {
        switch id.type {
        case .billPayLink:
            guard let record = try await services.billPayStore.links(ids: [id.uuid])[id.uuid], principal.maySee(customerID: record.customerID) else { return nil }
            return BillPayLinkView(record: record)
        case .billPayment:
            guard let record = try await services.billPayStore.payments(ids: [id.uuid])[id.uuid], principal.maySee(customerID: record.customerID) else { return nil }
            return BillPaymentView(record: record)
        default:
            return nil
        }
    }
}
