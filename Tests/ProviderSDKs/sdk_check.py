#!/usr/bin/env python3
"""Drive `payql sandbox` with the providers' own Python SDKs (razorpay, cashfree-pg).

Started by run.sh. It binds a webhook receiver, starts the sandbox on a free
port (`--port 0`, URL read from its first output line), runs the checks and
prints `N passed, N failed`; the exit status is 1 if anything failed.

Base-URL knobs used (the SDKs were not modified):
  * razorpay 2.0.1: `razorpay.Client(auth=(key_id, key_secret), base_url=SANDBOX + "/razorpay")`
    -- a documented Client option; the SDK appends the `/v1/...` paths.
  * cashfree-pg 6.0.1: no option exists -- each API method builds
    `Configuration(host="https://sandbox.cashfree.com/pg")` itself. The script
    replaces the name `Configuration` inside `cashfree_pg.api_client` with a
    subclass that swaps that host for SANDBOX + "/cashfree/pg" (everything else
    in the request is the SDK's own). `Cashfree.XApiVersion` is set to the
    pinned `2025-01-01` (the SDK default is `2026-01-01`; the sandbox takes either).
"""
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import traceback
import urllib.request
import uuid

import razorpay
import cashfree_pg.api_client as cf_api
from cashfree_pg.api_client import Cashfree
from cashfree_pg.configuration import Configuration
from cashfree_pg.exceptions import ApiException
from cashfree_pg.models.create_customer_request import CreateCustomerRequest
from cashfree_pg.models.create_order_request import CreateOrderRequest
from cashfree_pg.models.customer_details import CustomerDetails
from cashfree_pg.models.order_create_refund_request import OrderCreateRefundRequest
from cashfree_pg.models.order_meta import OrderMeta

# The sandbox's documented default credentials (docs/sandbox.md).
RZP_KEY_ID = "rzp_test_sandbox00001"
RZP_KEY_SECRET = "sandbox_razorpay_key_secret"
RZP_WEBHOOK_SECRET = "sandbox_razorpay_webhook_secret"
CF_CLIENT_ID = "cf_test_sandbox_app_id"
CF_CLIENT_SECRET = "cfsk_test_sandbox_secret"


class Receiver(http.server.BaseHTTPRequestHandler):
    """Records webhook POSTs: (path, headers, raw body)."""
    received = []

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        Receiver.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, function):
        try:
            function()
            self.passed += 1
            print(f"  ok    {name}")
        except Exception as error:  # report and carry on: every check runs
            self.failed += 1
            print(f"  FAIL  {name}: {error!r}")
            traceback.print_exc(limit=3, file=sys.stdout)


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def control(base, path, body):
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def webhooks_for(provider):
    return [r for r in Receiver.received if r[0].endswith("/" + provider)]


def razorpay_checks(base, checks):
    client = razorpay.Client(auth=(RZP_KEY_ID, RZP_KEY_SECRET), base_url=base + "/razorpay")
    state = {}

    def create_customer():
        customer = client.customer.create({"name": "Gaurav Kumar", "contact": "9123456780",
                                           "email": "gaurav.kumar@example.com", "notes": {"k": "v"}})
        expect(customer["id"].startswith("cust_"), customer)
        expect(customer["entity"] == "customer", customer)
        state["customer"] = customer["id"]

    def fetch_customer():
        customer = client.customer.fetch(state["customer"])
        expect(customer["name"] == "Gaurav Kumar" and customer["notes"] == {"k": "v"}, customer)

    def list_customers():
        listing = client.customer.all({"count": 10})
        expect(listing["entity"] == "collection" and listing["count"] >= 1, listing)
        expect(any(item["id"] == state["customer"] for item in listing["items"]), listing)

    def fail_existing():
        try:
            client.customer.create({"name": "Gaurav Kumar", "contact": "9123456780", "email": "gaurav.kumar@example.com"})
            raise AssertionError("a duplicate customer was created")
        except razorpay.errors.BadRequestError:
            pass
        same = client.customer.create({"name": "Gaurav Kumar", "contact": "9123456780",
                                       "email": "gaurav.kumar@example.com", "fail_existing": "0"})
        expect(same["id"] == state["customer"], same)

    def bad_contact():
        try:
            client.customer.create({"contact": "1234567"})
            raise AssertionError("a 7-digit contact was accepted")
        except razorpay.errors.BadRequestError as error:
            expect("at least 8 digits" in str(error), error)

    def bank_account():
        account = client.customer.addBankAccount(state["customer"], {
            "ifsc_code": "UTIB0000194", "account_number": "916010082985661", "beneficiary_name": "Gaurav"})
        expect(account["entity"] == "bank_account" and account["account_number"].endswith("5661"), account)
        deleted = client.customer.deleteBankAccount(state["customer"], account["id"])
        expect(deleted["status"] == "deleted", deleted)

    def create_order():
        order = client.order.create({"amount": 50000, "currency": "INR", "receipt": "receipt#1", "notes": {"a": "b"}})
        expect(order["id"].startswith("order_") and len(order["id"]) == 20, order)
        expect(order["status"] == "created" and order["amount_due"] == 50000, order)
        state["order"] = order["id"]

    def fetch_order():
        order = client.order.fetch(state["order"])
        expect(order["receipt"] == "receipt#1" and order["notes"] == {"a": "b"}, order)

    def list_orders():
        listing = client.order.all({"receipt": "receipt#1"})
        expect([item["id"] for item in listing["items"]] == [state["order"]], listing)

    def small_order():
        try:
            client.order.create({"amount": 99, "currency": "INR"})
            raise AssertionError("99 paise was accepted")
        except razorpay.errors.BadRequestError as error:
            expect("at least INR 1.00" in str(error), error)

    def wrong_key():
        other = razorpay.Client(auth=(RZP_KEY_ID, "wrong"), base_url=base + "/razorpay")
        try:
            other.order.fetch(state["order"])
            raise AssertionError("a wrong secret was accepted")
        except razorpay.errors.BadRequestError:
            pass

    def pay_and_verify():
        done = control(base, f"/_sandbox/razorpay/orders/{state['order']}/complete", {"status": "paid"})
        checkout = done["checkout"]
        # The SDK's own verifier accepts the signature the sandbox's Checkout produced.
        expect(client.utility.verify_payment_signature(checkout) is True, checkout)
        order = client.order.fetch(state["order"])
        expect(order["status"] == "paid" and order["amount_paid"] == 50000, order)
        payments = client.order.payments(state["order"])
        expect(payments["items"][0]["id"] == checkout["razorpay_payment_id"], payments)
        payment = client.payment.fetch(checkout["razorpay_payment_id"])
        expect(payment["status"] == "captured" and payment["captured"] is True, payment)
        state["payment"] = payment["id"]

    def webhook_signatures():
        hooks = webhooks_for("razorpay")
        expect(len(hooks) >= 3, f"{len(hooks)} razorpay webhooks")
        for _, headers, body in hooks:
            # verify_webhook_signature raises SignatureVerificationError on a mismatch.
            client.utility.verify_webhook_signature(body.decode(), headers["x-razorpay-signature"], RZP_WEBHOOK_SECRET)
        events = [json.loads(body)["event"] for _, _, body in hooks]
        expect(events[:3] == ["payment.authorized", "payment.captured", "order.paid"], events)

    def refund():
        refund = client.payment.refund(state["payment"], {"amount": 10000, "speed": "normal"})
        expect(refund["entity"] == "refund" and refund["status"] == "processed" and refund["amount"] == 10000, refund)
        fetched = client.refund.fetch(refund["id"])
        expect(fetched["payment_id"] == state["payment"], fetched)

    for name, function in [("razorpay: create customer", create_customer), ("razorpay: fetch customer", fetch_customer),
                           ("razorpay: list customers", list_customers), ("razorpay: fail_existing", fail_existing),
                           ("razorpay: contact validation error", bad_contact), ("razorpay: TPV bank account", bank_account),
                           ("razorpay: create order", create_order), ("razorpay: fetch order", fetch_order),
                           ("razorpay: list orders by receipt", list_orders), ("razorpay: amount validation error", small_order),
                           ("razorpay: wrong key refused", wrong_key), ("razorpay: pay, fetch, verify signature", pay_and_verify),
                           ("razorpay: webhook signatures (SDK verifier)", webhook_signatures), ("razorpay: refund", refund)]:
        checks.check(name, function)


def cashfree_checks(base, checks):
    sandbox_host = "https://sandbox.cashfree.com/pg"

    class SandboxConfiguration(Configuration):
        def __init__(self, *args, **kwargs):
            if kwargs.get("host") == sandbox_host:
                kwargs["host"] = base + "/cashfree/pg"
            super().__init__(*args, **kwargs)

    cf_api.Configuration = SandboxConfiguration
    cf = Cashfree(XEnvironment=Cashfree.SANDBOX, XClientId=CF_CLIENT_ID, XClientSecret=CF_CLIENT_SECRET)
    cf.XApiVersion = "2025-01-01"
    order_id = "order_sdk_" + uuid.uuid4().hex[:12]
    state = {}

    def order_request(oid, amount=10.10):
        return CreateOrderRequest(
            order_id=oid, order_amount=amount, order_currency="INR",
            customer_details=CustomerDetails(customer_id="USER123", customer_phone="9876543210",
                                             customer_email="joe.s@cashfree.com", customer_name="joe"),
            order_meta=OrderMeta(return_url="https://merchant.example.com/return?order_id={order_id}"),
            order_note="sdk test", order_tags={"source": "sdk"})

    def create_order():
        response = cf.PGCreateOrder(order_request(order_id), x_idempotency_key=str(uuid.uuid5(uuid.NAMESPACE_URL, order_id)))
        order = response.data
        expect(response.status_code == 200, response.status_code)
        expect(order.order_id == order_id and order.order_status == "ACTIVE", order)
        expect(order.payment_session_id.startswith("session_"), order.payment_session_id)
        expect(order.order_amount == 10.1 and order.customer_details.customer_phone == "9876543210", order)
        state["cf_order_id"] = order.cf_order_id

    def idempotent_retry():
        again = cf.PGCreateOrder(order_request(order_id), x_idempotency_key=str(uuid.uuid5(uuid.NAMESPACE_URL, order_id))).data
        expect(again.cf_order_id == state["cf_order_id"], again)

    def duplicate_order():
        try:
            cf.PGCreateOrder(order_request(order_id))
            raise AssertionError("a reused order_id was accepted")
        except ApiException as error:
            expect(error.status == 409, error)

    def fetch_order():
        order = cf.PGFetchOrder(order_id).data
        expect(order.cf_order_id == state["cf_order_id"] and order.order_status == "ACTIVE", order)
        expect(order.order_meta.return_url.endswith("order_id=" + order_id), order.order_meta)

    def unknown_order():
        try:
            cf.PGFetchOrder("order_does_not_exist")
            raise AssertionError("an unknown order was found")
        except ApiException as error:
            expect(error.status == 404 and "order_not_found" in str(error.body), error)

    def invalid_amount():
        try:
            cf.PGCreateOrder(order_request("order_sdk_bad_" + uuid.uuid4().hex[:8], amount=10.101))
            raise AssertionError("10.101 was accepted")
        except ApiException as error:
            expect(error.status == 400 and "order_amount_invalid" in str(error.body), error)

    def create_customer():
        customer = cf.PGCreateCustomer(CreateCustomerRequest(customer_phone="9999999999", customer_email="joe@example.com",
                                                             customer_name="Joe")).data
        expect(customer.customer_uid and customer.customer_phone == "9999999999", customer)

    def pay_and_fetch():
        control(base, f"/_sandbox/cashfree/orders/{order_id}/complete", {"status": "paid"})
        order = cf.PGFetchOrder(order_id).data
        expect(order.order_status == "PAID", order)
        payments = cf.PGOrderFetchPayments(order_id).data
        expect(len(payments) == 1 and payments[0].payment_status == "SUCCESS", payments)

    def webhook_signature():
        hooks = webhooks_for("cashfree")
        expect(len(hooks) >= 1, "no cashfree webhook")
        _, headers, body = hooks[0]
        event = cf.PGVerifyWebhookSignature(headers["x-webhook-signature"], body.decode(), headers["x-webhook-timestamp"])
        expect(event.type == "PAYMENT_SUCCESS_WEBHOOK", event.type)
        expect(event.object["data"]["order"]["order_id"] == order_id, event.object)

    def refund():
        refund = cf.PGOrderCreateRefund(order_id, OrderCreateRefundRequest(refund_amount=5.05, refund_id="refund_sdk_1",
                                                                           refund_note="partial refund")).data
        expect(refund.refund_status == "SUCCESS" and refund.refund_amount == 5.05, refund)
        fetched = cf.PGOrderFetchRefund(order_id, "refund_sdk_1").data
        expect(fetched.cf_refund_id == refund.cf_refund_id, fetched)

    for name, function in [("cashfree: create order", create_order), ("cashfree: idempotent retry", idempotent_retry),
                           ("cashfree: duplicate order_id → 409", duplicate_order), ("cashfree: fetch order", fetch_order),
                           ("cashfree: unknown order → 404", unknown_order), ("cashfree: amount validation → 400", invalid_amount),
                           ("cashfree: create customer", create_customer), ("cashfree: pay, fetch order and payments", pay_and_fetch),
                           ("cashfree: webhook signature (SDK verifier)", webhook_signature), ("cashfree: refund", refund)]:
        checks.check(name, function)


def main():
    payql = sys.argv[1] if len(sys.argv) > 1 else "payql"
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook_url = f"http://127.0.0.1:{receiver.server_address[1]}/hooks"
    sandbox = subprocess.Popen([payql, "sandbox", "--host", "127.0.0.1", "--port", "0", "--webhook-url", hook_url],
                               stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
    checks = Checks()
    try:
        deadline = time.monotonic() + 20
        line = ""
        while time.monotonic() < deadline and "listening on" not in line:
            line = sandbox.stdout.readline()
            if not line and sandbox.poll() is not None:
                raise RuntimeError(f"payql sandbox exited with {sandbox.returncode}")
        if "listening on" not in line:
            raise RuntimeError("payql sandbox did not start within 20 s")
        base = line.strip().rsplit(" ", 1)[-1]
        threading.Thread(target=lambda: [None for _ in sandbox.stdout], daemon=True).start()
        print(f"sandbox at {base}, webhooks to {hook_url}")
        razorpay_checks(base, checks)
        cashfree_checks(base, checks)
    except Exception as error:
        checks.failed += 1
        print(f"  FAIL  setup: {error!r}")
    finally:
        sandbox.terminate()
        try:
            sandbox.wait(timeout=10)
        except subprocess.TimeoutExpired:
            sandbox.kill()
            sandbox.wait()
        receiver.shutdown()
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 0 if checks.failed == 0 and checks.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
