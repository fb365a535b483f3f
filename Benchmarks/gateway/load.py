#!/usr/bin/env python3
"""Seeding and load for Benchmarks/gateway (standard library only).

  load.py seed URL KEY SANDBOX N OUT_DIR   N orders with customers, every other one paid in the sandbox;
                                           writes OUT_DIR/order-ids and OUT_DIR/provider-orders
  load.py events SECRET N OUT_DIR [TAG ORDERS_FILE EVENTS_FILE]
                                           N signed Razorpay payment.captured deliveries (distinct event and
                                           payment ids, evt_TAG… and pay_TAG…, TAG default "bench") for the orders in
                                           OUT_DIR/provider-orders (or ORDERS_FILE) → OUT_DIR/events (or EVENTS_FILE)
  load.py create URL KEY CONCURRENCY N     N createOrder calls, CONCURRENCY at a time over keep-alive
                                           connections; prints the gateway's own overhead
                                           (extensions.timing totalMs - providerMs) p50/p90/p99 and the rate;
                                           PROVIDER=CASHFREE|INSTAMOJO (default RAZORPAY; those two need a
                                           customer, so only RAZORPAY works without one)
  load.py check DATABASE_SQL_COUNTS ...    (run.sh queries PostgreSQL itself)
"""
import hashlib
import hmac
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse


def post(connection, path, body, headers):
    connection.request("POST", path, body=body, headers=headers)
    response = connection.getresponse()
    return response.status, response.read()


def graphql(connection, key, query, variables=None):
    status, body = post(connection, "/graphql", json.dumps({"query": query, "variables": variables or {}}),
                        {"content-type": "application/json", "authorization": "Bearer " + key})
    answer = json.loads(body)
    if status != 200 or answer.get("errors"):
        raise SystemExit(f"graphql failed ({status}): {body[:300]!r}")
    return answer


def connection_for(url):
    parsed = urllib.parse.urlparse(url)
    return http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)


def seed(url, key, sandbox, count, out):
    connection = connection_for(url)
    control = connection_for(sandbox)
    ids, provider_orders = [], []
    for n in range(count):
        customer = graphql(connection, key, """mutation($p: PhoneNumber) { createCustomer(input: {name: "Bench Customer", email: "bench@example.com",
            phone: $p}) { customer { id } } }""", {"p": "9%09d" % (100000000 + n)})["data"]["createCustomer"]["customer"]["id"]
        order = graphql(connection, key, """mutation($c: ID) { createOrder(input: {amount: {amount: "50000"}, provider: RAZORPAY, customerId: $c}) {
            order { id providerOrderId } userErrors { code message } } }""", {"c": customer})["data"]["createOrder"]["order"]
        ids.append(order["id"])
        provider_orders.append(order["providerOrderId"])
        if n % 2 == 0:
            status, body = post(control, "/_sandbox/razorpay/orders/%s/complete" % order["providerOrderId"], '{"status":"paid"}',
                                {"content-type": "application/json"})
            if status != 200:
                raise SystemExit(f"sandbox complete failed: {body[:200]!r}")
    with open(out + "/order-ids", "w") as f:
        f.write("\n".join(ids) + "\n")
    with open(out + "/provider-orders", "w") as f:
        f.write("\n".join(provider_orders) + "\n")


def events(secret, count, out, tag="bench", orders_file="provider-orders", events_file="events"):
    orders = [line.strip() for line in open(out + "/" + orders_file) if line.strip()]
    with open(out + "/" + events_file, "w") as f:
        for n in range(count):
            order = orders[n % len(orders)]
            payment = {"id": "pay_%s%09d" % (tag, n), "entity": "payment", "amount": 50000, "currency": "INR", "status": "captured",
                       "order_id": order, "method": "upi", "captured": True, "amount_refunded": 0, "vpa": "success@razorpay",
                       "email": "bench@example.com", "contact": "+919000000000", "created_at": 1796000000 + n}
            body = json.dumps({"entity": "event", "account_id": "acc_bench", "event": "payment.captured", "contains": ["payment"],
                               "payload": {"payment": {"entity": payment}}, "created_at": 1796000000 + n}, separators=(",", ":"))
            signature = hmac.new(secret.encode(), body.encode(), hashlib.sha256).hexdigest()
            f.write("evt_%s%09d\t%s\t%s\n" % (tag, n, signature, body))


def create(url, key, concurrency, count):
    overheads, totals, failures = [], [], []
    lock = threading.Lock()
    per_thread = count // concurrency
    query = 'mutation { createOrder(input: {amount: {amount: "50000"}, provider: %s}) { order { id providerOrderId } userErrors { code } } }' % os.environ.get("PROVIDER", "RAZORPAY")

    def worker():
        connection = connection_for(url)
        mine, mine_total = [], []
        for _ in range(per_thread):
            status, body = post(connection, "/graphql", json.dumps({"query": query}),
                                {"content-type": "application/json", "authorization": "Bearer " + key})
            answer = json.loads(body)
            timing = answer.get("extensions", {}).get("timing")
            created = (answer.get("data") or {}).get("createOrder") or {}
            if status != 200 or not timing or answer.get("errors") or not created.get("order") or created.get("userErrors"):
                with lock:
                    failures.append(body[:200])
                continue
            mine.append(timing["totalMs"] - timing["providerMs"])
            mine_total.append(timing["totalMs"])
        with lock:
            overheads.extend(mine)
            totals.extend(mine_total)

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    overheads.sort()
    totals.sort()

    def pct(values, p):
        return values[min(len(values) - 1, max(0, int(round(p / 100 * len(values) + 0.5)) - 1))] if values else float("nan")

    print("RESULT create_orders=%d failures=%d rate=%.0f/s overhead_p50_ms=%.3f overhead_p90_ms=%.3f overhead_p99_ms=%.3f total_p50_ms=%.3f total_p99_ms=%.3f"
          % (len(overheads), len(failures), len(overheads) / elapsed, pct(overheads, 50), pct(overheads, 90), pct(overheads, 99),
             pct(totals, 50), pct(totals, 99)))
    if failures:
        print("first failure:", failures[0], file=sys.stderr)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "seed":
        seed(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6])
    elif command == "events":
        events(sys.argv[2], int(sys.argv[3]), sys.argv[4], *sys.argv[5:8])
    elif command == "create":
        create(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        raise SystemExit(__doc__)
