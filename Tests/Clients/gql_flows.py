#!/usr/bin/env python3
"""The Python `gql` client (PyPI) against a live PayQL: it fetches the schema by
introspection (every document below is validated by graphql-core against it
before it is sent) and runs the Cashfree and Razorpay flows: create a customer,
create an order, complete it in the sandbox through its control API, see it PAID.

Usage: gql_flows.py PAYQL_URL SANDBOX_URL SECRET_KEY   (started by run.sh)
Prints one line per check and `N passed, N failed`; exit status 1 on a failure.
"""
import json
import sys
import time
import traceback
import urllib.request
import uuid

from gql import Client, gql
from gql.transport.requests import RequestsHTTPTransport
from graphql import GraphQLSchema

PAYQL, SANDBOX, SECRET = sys.argv[1], sys.argv[2], sys.argv[3]

CREATE_CUSTOMER = gql("""
mutation CreateCustomer($input: CreateCustomerInput!) {
  createCustomer(input: $input) { customer { id name phone } existing userErrors { code message field } }
}""")
CREATE_ORDER = gql("""
mutation CreateOrder($input: CreateOrderInput!) {
  createOrder(input: $input) {
    order { id receipt provider providerOrderId status amount { amount currency decimal }
      checkout { __typename
        ... on RazorpayCheckout { keyId orderId amount { amount } prefill { name email contact } }
        ... on CashfreeCheckout { orderId paymentSessionId environment } } }
    userErrors { code message field } }
}""")
VERIFY = gql("""
mutation Verify($input: VerifyOrderPaymentInput!) {
  verifyOrderPayment(input: $input) {
    verified order { status amountPaid { amount } } payment { providerPaymentId status verification { method } }
    userErrors { code message } }
}""")
ORDER = gql("""
query Order($id: ID!) { order(id: $id) { id status amountPaid { amount } payments { status verified verification { method } } } }
""")
SYNC = gql("""
mutation Sync($input: SyncOrderInput!) { syncOrder(input: $input) { order { status } userErrors { code } } }
""")


def sandbox_complete(provider, order, status="paid"):
    """The sandbox's control API: the customer finishes paying (docs/sandbox.md)."""
    request = urllib.request.Request(f"{SANDBOX}/_sandbox/{provider}/orders/{order}/complete",
                                     data=json.dumps({"status": status}).encode(), method="POST",
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def eventually(condition, seconds=20.0):
    """Webhooks arrive after the control call answers: poll with a generous deadline."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def main():
    transport = RequestsHTTPTransport(url=PAYQL + "/graphql", headers={"Authorization": "Bearer " + SECRET}, timeout=30, retries=0)
    client = Client(transport=transport, fetch_schema_from_transport=True)
    passed = failed = 0

    def check(name, function, session):
        nonlocal passed, failed
        try:
            function(session)
            passed += 1
            print(f"  ok    {name}")
        except Exception as error:  # report and carry on: every check runs
            failed += 1
            print(f"  FAIL  {name}: {error!r}")
            traceback.print_exc(limit=4, file=sys.stdout)

    def schema_by_introspection(session):
        schema = client.schema
        expect(isinstance(schema, GraphQLSchema), "no schema fetched")
        for name in ("Order", "CreateOrderInput", "Money", "RazorpayCheckout", "CashfreeCheckout"):
            expect(schema.get_type(name) is not None, f"introspected schema lacks {name}")
        expect("createOrder" in schema.mutation_type.fields, "no createOrder mutation")

    def customer(session, phone):
        answer = session.execute(CREATE_CUSTOMER, variable_values={"input": {
            "name": "Asha Rao", "email": f"asha.{uuid.uuid4().hex[:8]}@example.com", "phone": phone}})
        payload = answer["createCustomer"]
        expect(payload["userErrors"] == [], payload["userErrors"])
        return payload["customer"]["id"]

    def order(session, provider, amount, customer_id):
        answer = session.execute(CREATE_ORDER, variable_values={"input": {
            "amount": {"amount": amount}, "provider": provider, "customerId": customer_id}})
        payload = answer["createOrder"]
        expect(payload["userErrors"] == [], payload["userErrors"])
        created = payload["order"]
        expect(created["status"] == "CREATED", created)
        expect(created["amount"]["amount"] == amount, created)
        return created

    def status(session, order_id):
        return session.execute(ORDER, variable_values={"id": order_id})["order"]

    def razorpay_flow(session):
        created = order(session, "RAZORPAY", "50000", customer(session, "9876543210"))
        checkout = created["checkout"]
        expect(checkout["__typename"] == "RazorpayCheckout" and checkout["orderId"] == created["providerOrderId"], checkout)
        expect(checkout["prefill"]["contact"] == "+919876543210", checkout)
        # What Razorpay Checkout hands the app's success handler, given to PayQL to verify.
        handler = sandbox_complete("razorpay", created["providerOrderId"])["checkout"]
        answer = session.execute(VERIFY, variable_values={"input": {
            "orderId": created["id"], "clientOutcome": "SUCCESS_CALLBACK",
            "razorpay": {"razorpayPaymentId": handler["razorpay_payment_id"], "razorpayOrderId": handler["razorpay_order_id"],
                         "razorpaySignature": handler["razorpay_signature"]}}})
        payload = answer["verifyOrderPayment"]
        expect(payload["userErrors"] == [] and payload["verified"] is True, payload)
        expect(payload["order"]["status"] == "PAID" and payload["order"]["amountPaid"]["amount"] == "50000", payload)
        expect(payload["payment"]["providerPaymentId"] == handler["razorpay_payment_id"], payload)
        final = status(session, created["id"])
        expect(final["status"] == "PAID", final)
        expect(len(final["payments"]) == 1 and final["payments"][0]["verified"] is True, final)

    def cashfree_flow(session):
        created = order(session, "CASHFREE", "17000", customer(session, "+919812345678"))
        checkout = created["checkout"]
        expect(checkout["__typename"] == "CashfreeCheckout" and checkout["paymentSessionId"], checkout)
        # Cashfree's order_id is PayQL's receipt; the sandbox then posts its signed webhook back.
        sandbox_complete("cashfree", created["receipt"])
        expect(eventually(lambda: status(session, created["id"])["status"] == "PAID"), "order not PAID by the webhook")
        final = status(session, created["id"])
        expect(final["amountPaid"]["amount"] == "17000", final)
        expect(final["payments"][0]["verification"]["method"] == "SIGNED_WEBHOOK", final)
        synced = session.execute(SYNC, variable_values={"input": {"orderId": created["id"]}})["syncOrder"]
        expect(synced["userErrors"] == [] and synced["order"]["status"] == "PAID", synced)

    with client as session:
        check("gql fetches the schema by introspection", schema_by_introspection, session)
        check("gql: Razorpay customer -> order -> checkout -> verifyOrderPayment -> PAID", razorpay_flow, session)
        check("gql: Cashfree customer -> order -> sandbox payment -> webhook -> PAID", cashfree_flow, session)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
