@testable import Gateway
import JSON
import Testing

/// `order(id)` reading its customer and payments in the same statement as the order when they
/// are selected (OrderStore.find(id:with:)), and the loader path it replaces giving the same answers.
@Suite struct OrderReadTests {
    @Test func theOrderItsCustomerAndItsPaymentsAreReadTogether() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let paid = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", customer: customer)
            let without = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY")
            let paidText = try #require(paid["id"]?.stringValue)
            let orderID = try #require(GlobalID(paidText, of: .order))
            let customerID = try #require(GlobalID(customer, of: .customer))
            try await h.complete("razorpay", order: try #require(paid["providerOrderId"]?.stringValue))
            #expect(try await h.eventually { try await OrderLifecycleTests.order(h, orderID.description)["status"]?.stringValue == "PAID" })

            let store = h.gateway.services.orderStore
            let expectedPayments = try await h.gateway.services.paymentStore.payments(orderIDs: [orderID.uuid])[orderID.uuid] ?? []
            #expect(!expectedPayments.isEmpty)
            let expectedOrder = try await store.find(id: orderID.uuid)
            let expectedCustomer = try await h.gateway.services.customerStore.find(id: customerID.uuid)
            for related in [OrderStore.Related(customer: true), OrderStore.Related(payments: true),
                            OrderStore.Related(customer: true, payments: true)] {
                let read = try #require(try await store.find(id: orderID.uuid, with: related))
                #expect(read.order == expectedOrder)
                #expect(read.customer == (related.customer ? expectedCustomer : nil))
                #expect(read.payments == (related.payments ? expectedPayments : nil))
            }
            // No customer, no payments: one row of the order, nothing else.
            let aloneText = try #require(without["id"]?.stringValue)
            let alone = try #require(GlobalID(aloneText, of: .order))
            let read = try #require(try await store.find(id: alone.uuid, with: .init(customer: true, payments: true)))
            #expect(read.order.id == alone.uuid && read.customer == nil && read.payments == [])
            #expect(try await store.find(id: customerID.uuid, with: .init(customer: true, payments: true)) == nil)
        }
    }

    @Test func everyWayOfSelectingTheCustomerAndPaymentsGivesTheSameAnswer() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", customer: customer)
            let id = try #require(created["id"])
            try await h.complete("razorpay", order: try #require(created["providerOrderId"]?.stringValue))
            #expect(try await h.eventually {
                try await OrderLifecycleTests.order(h, try #require(id.stringValue))["payments"]?.arrayValue?.isEmpty == false
            })
            let fields = "customer { id name email phone } payments { id providerPaymentId status amount { amount } verified }"
            let direct = try await h.graphQL("query($id: ID!) { order(id: $id) { id \(fields) } }", variables: ["id": id])
            // Inline fragments are looked into; a fragment spread is not (the customer and payments then come from the loaders).
            let inline = try await h.graphQL("query($id: ID!) { order(id: $id) { id ... on Order { \(fields) } } }", variables: ["id": id])
            let spread = try await h.graphQL("query($id: ID!) { order(id: $id) { id ...C } } fragment C on Order { \(fields) }",
                                             variables: ["id": id])
            let onlyPayments = try await h.graphQL("query($id: ID!) { order(id: $id) { payments { id } } }", variables: ["id": id])
            #expect(onlyPayments.data("order")?["payments"]?.arrayValue?.count == direct.data("order")?["payments"]?.arrayValue?.count)
            #expect(direct.data("order")?["customer"]?["id"]?.stringValue == customer)
            #expect(direct.data("order")?["customer"]?["phone"]?.stringValue == "+919876543210")
            #expect(direct.data("order") == inline.data("order"))
            #expect(direct.data("order") == spread.data("order"))

            // An order without a customer: null either way.
            let lone = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY")
            let answer = try await h.graphQL("query($id: ID!) { order(id: $id) { id customer { id } payments { id } } }",
                                             variables: ["id": try #require(lone["id"])])
            #expect(answer.data("order")?["id"] == lone["id"])
            #expect(answer.data("order")?["customer"] == .null)
            #expect(answer.data("order")?["payments"] == [])
        }
    }

    @Test func aClientSessionSeesItsOwnOrderWithItsCustomerAndNoOtherOrder() async throws {
        try await GatewayHarness.run { h in
            let mine = try await OrderLifecycleTests.createCustomer(h, phone: "9000000001")
            let theirs = try await OrderLifecycleTests.createCustomer(h, phone: "9000000002")
            let myOrder = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", customer: mine)
            let theirOrder = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", customer: theirs)
            let session = try await h.graphQL("""
                mutation($c: ID!) { createClientSession(input: {customerId: $c, maxOrderAmount: "100000"}) { session { token } } }
                """, variables: ["c": .string(mine)])
            let token = try #require(session.data("createClientSession")?["session"]?["token"]?.stringValue)
            let query = "query($id: ID!) { order(id: $id) { id customer { id } } }"
            let own = try await h.graphQL(query, variables: ["id": try #require(myOrder["id"])], key: token)
            #expect(own.data("order")?["customer"]?["id"]?.stringValue == mine)
            let other = try await h.graphQL(query, variables: ["id": try #require(theirOrder["id"])], key: token)
            #expect(other.status == 200 && other.data("order") == .null)
        }
    }
    /// A read whose selection certainly asks for neither the checkout nor the notes leaves their jsonb
    /// unread (`Related.payloads`); a selection that may ask for them (directly, in an inline fragment,
    /// or through a fragment spread, which is not looked into) gets them.
    @Test func theCheckoutAndNotesAreReadOnlyWhenTheyMayBeSelected() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", customer: customer,
                                                                    extra: #", notes: [{key: "k", value: "v"}]"#)
            let id = try #require(created["id"])
            let idText = try #require(id.stringValue)
            let orderID = try #require(GlobalID(idText, of: .order))
            let store = h.gateway.services.orderStore
            let full = try #require(try await store.find(id: orderID.uuid, with: .init(customer: true)))
            #expect(full.order.checkout != nil && !full.order.notes.pairs.isEmpty)
            let light = try #require(try await store.find(id: orderID.uuid, with: .init(customer: true, payloads: false)))
            #expect(light.order.checkout == nil && light.order.notes.pairs.isEmpty)
            var rest = light.order
            rest.checkout = full.order.checkout
            rest.notes = full.order.notes
            #expect(rest == full.order && light.customer == full.customer)

            let fields = "checkout { __typename ... on RazorpayCheckout { orderId } } notes { key value }"
            for query in ["query($id: ID!) { order(id: $id) { id customer { id } \(fields) } }",
                          "query($id: ID!) { order(id: $id) { id customer { id } ... on Order { \(fields) } } }",
                          "query($id: ID!) { order(id: $id) { id customer { id } ...F } } fragment F on Order { \(fields) }"] {
                let answer = try await h.graphQL(query, variables: ["id": id])
                #expect(answer.data("order")?["checkout"]?["orderId"] == created["providerOrderId"], "\(query)")
                #expect(answer.data("order")?["notes"] == [["key": "k", "value": "v"]], "\(query)")
            }
            let without = try await h.graphQL("query($id: ID!) { order(id: $id) { id status customer { id } } }", variables: ["id": id])
            #expect(without.data("order")?["status"]?.stringValue == "CREATED")
        }
    }
}
