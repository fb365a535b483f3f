#!/usr/bin/env python3
"""The ops page in a real browser (Debian's chromium + chromium-driver, python3-selenium)
against a real `payql serve` with the in-process sandbox:

  a wrong key gets a clear message; sign in with an OPS key made by `payql keys create`;
  orders created through the API appear; one completed in the sandbox turns PAID on the
  open page without a reload (GraphQL over SSE, or the page's poll when the server
  refuses subscriptions); filter; page; open the detail; reprocess a webhook; every
  other view renders; the GraphQL explorer loads the schema's docs and runs a query.

Takes a screenshot of each view: into a temporary directory by default (so `make test`
leaves the working tree clean), into docs/screenshots/ (committed; docs/ops-page.md shows
them) with PAYQL_UPDATE_SCREENSHOTS=1.

  /usr/bin/python3 Tests/browser/ops_page_test.py .build/debug/payql
  PAYQL_UPDATE_SCREENSHOTS=1 /usr/bin/python3 Tests/browser/ops_page_test.py .build/debug/payql
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHOTS = (os.path.join(ROOT, "docs", "screenshots") if os.environ.get("PAYQL_UPDATE_SCREENSHOTS") == "1"
         else os.path.join(tempfile.gettempdir(), "payql-ops-screenshots"))
# Generous: a 2-core machine shared with other builds; these are deadlines, not expectations.
WAIT = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`payql serve` on a private embedded PostgreSQL and the sandbox, in a temporary directory."""

    def __init__(self, binary: str):
        self.binary = os.path.abspath(binary)
        self.dir = tempfile.mkdtemp(prefix="payql-browser-")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = os.path.join(self.dir, "serve.log")
        self.process = None
        self.sandbox = None

    def start(self):
        log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--threads", "2",
             "--data-dir", os.path.join(self.dir, "postgres"), "--dev-keys-dir", self.dir, "--log-level", "info"],
            cwd=self.dir, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("payql serve exited:\n" + self.log())
            for line in self.log().splitlines():
                if line.startswith("{"):
                    try:
                        event = json.loads(line)
                    except ValueError:
                        continue
                    if event.get("msg") == "listening":
                        self.sandbox = event.get("sandbox")
            if self.sandbox and "PayQL is serving" in self.log():
                return
            time.sleep(0.2)
        raise RuntimeError("payql serve did not start:\n" + self.log())

    def log(self) -> str:
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def make_key(self, scope: str) -> str:
        """`payql keys create --scope SCOPE` against the running server's embedded cluster."""
        out = subprocess.run([self.binary, "keys", "create", "--scope", scope, "--name", f"browser test {scope}",
                              "--data-dir", os.path.join(self.dir, "postgres")],
                             cwd=self.dir, capture_output=True, text=True, timeout=120, check=True)
        return out.stdout.strip().splitlines()[-1]

    def graphql(self, key: str, query: str, variables=None) -> dict:
        body = json.dumps({"query": query, "variables": variables or {}}).encode()
        request = urllib.request.Request(self.base + "/graphql", data=body, method="POST", headers={
            "content-type": "application/json", "authorization": f"Bearer {key}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    def sandbox_control(self, path: str, body: dict) -> dict:
        request = urllib.request.Request(self.sandbox + "/_sandbox" + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def browser() -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,1000",
                 "--disable-gpu", "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    chromium = shutil.which("chromium")
    if chromium:
        options.binary_location = chromium
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    return webdriver.Chrome(service=Service(driver_path), options=options)


class Check:
    def __init__(self, driver):
        self.driver = driver
        self.passed = 0

    def wait(self, what: str, condition, timeout: float = WAIT):
        try:
            # The page re-renders views: an element read while it is replaced is just read again.
            value = WebDriverWait(self.driver, timeout, poll_frequency=0.2,
                                  ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d))
        except TimeoutException:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for: {what}") from None
        self.passed += 1
        print(f"  ok  {what}", flush=True)
        return value

    def expect(self, what: str, condition: bool):
        if not condition:
            raise AssertionError(what)
        self.passed += 1
        print(f"  ok  {what}", flush=True)


def text_of(driver, selector: str) -> str:
    try:
        found = driver.find_elements(By.CSS_SELECTOR, selector)
        return found[0].text if found else ""
    except StaleElementReferenceException:
        return ""


def shot(driver, name: str):
    os.makedirs(SHOTS, exist_ok=True)
    driver.save_screenshot(os.path.join(SHOTS, name))


def heading_is(text: str):
    return lambda d: text_of(d, "#view h2") == text


def main() -> int:
    binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PAYQL_BIN", os.path.join(ROOT, ".build", "debug", "payql"))
    server = Server(binary)
    driver = None
    try:
        server.start()
        ops_key = server.make_key("OPS")
        secret_key = server.make_key("SECRET")
        driver = browser()
        check = Check(driver)
        d = driver

        # A wrong key: a clear message, nothing stored.
        d.get(server.base + "/ops")
        check.wait("the sign-in form is shown", lambda d: d.find_element(By.ID, "login").is_displayed())
        d.find_element(By.ID, "key").send_keys("payql_wrong_key_for_the_browser_test")
        d.find_element(By.ID, "login-button").click()
        check.wait("a wrong key gets a clear message", lambda d: "was refused" in text_of(d, "#login-error"))
        check.expect("the wrong key is not kept", d.execute_script("return sessionStorage.getItem('payql.ops.key')") is None)
        shot(d, "ops-sign-in-wrong-key.png")

        # Sign in with the OPS key.
        d.find_element(By.ID, "key").clear()
        d.find_element(By.ID, "key").send_keys(ops_key)
        d.find_element(By.ID, "login-button").click()
        check.wait("signed in: the orders view", heading_is("Orders"))
        check.expect("the key is not in the URL", ops_key not in d.current_url)

        # Orders through the API (SECRET key), newest last.
        made = []
        for n in range(7):
            answer = server.graphql(secret_key, """mutation($r: String!) { createOrder(input: {
                amount: {amount: "%d"}, provider: RAZORPAY, receipt: $r }) { order { id providerOrderId status } userErrors { code message } } }"""
                                    % (50000 + n * 100), {"r": f"browser-{n}-{int(time.time())}"})
            payload = answer["data"]["createOrder"]
            assert not payload["userErrors"], payload
            made.append(payload["order"])
        newest = made[-1]
        d.find_element(By.ID, "refresh").click()
        row = f'tr[data-order-id="{newest["id"]}"]'
        check.wait("a new order appears after Refresh", lambda d: text_of(d, row + " .status") == "CREATED")
        d.execute_script("window.__sameDocument = 'yes'")
        check.wait("the page watches the open orders (SSE or its poll)",
                   lambda d: d.find_element(By.ID, "live").get_attribute("data-mode") in ("sse", "poll"))
        mode = d.find_element(By.ID, "live").get_attribute("data-mode")

        # Paid in the sandbox: the open page shows PAID without a reload.
        server.sandbox_control(f"/razorpay/orders/{newest['providerOrderId']}/complete", {"status": "paid"})
        check.wait(f"the order turns PAID on the open page (live mode: {mode})", lambda d: text_of(d, row + " .status") == "PAID")
        check.expect("no reload happened", d.execute_script("return window.__sameDocument") == "yes")
        shot(d, "ops-orders.png")

        # Filter: status PAID gives exactly that order.
        d.find_element(By.CSS_SELECTOR, '#order-filter input[name="status"][value="PAID"]').click()
        d.find_element(By.ID, "apply-filter").click()
        check.wait("filter by status PAID shows just the paid order",
                   lambda d: len(d.find_elements(By.CSS_SELECTOR, "#orders-table tbody tr")) == 1
                   and d.find_elements(By.CSS_SELECTOR, row))
        shot(d, "ops-orders-filtered.png")

        # Page: CREATED orders five per page (six of them): page 2 holds the oldest.
        d.find_element(By.CSS_SELECTOR, '#order-filter input[name="status"][value="PAID"]').click()
        d.find_element(By.CSS_SELECTOR, '#order-filter input[name="status"][value="CREATED"]').click()
        d.find_element(By.CSS_SELECTOR, '#order-filter select[name="first"] option[value="5"]').click()
        d.find_element(By.ID, "apply-filter").click()
        check.wait("page 1 holds five CREATED orders",
                   lambda d: len(d.find_elements(By.CSS_SELECTOR, "#orders-table tbody tr")) == 5 and text_of(d, "#page-number") == "Page 1")
        first_page = {e.get_attribute("data-order-id") for e in d.find_elements(By.CSS_SELECTOR, "#orders-table tbody tr")}
        d.find_element(By.ID, "older-page").click()
        check.wait("Older → shows page 2 with the oldest order",
                   lambda d: text_of(d, "#page-number") == "Page 2"
                   and [e.get_attribute("data-order-id") for e in d.find_elements(By.CSS_SELECTOR, "#orders-table tbody tr")] == [made[0]["id"]])
        check.expect("the two pages do not overlap", made[0]["id"] not in first_page)
        d.find_element(By.ID, "newer-page").click()
        check.wait("← Newer goes back to page 1", lambda d: text_of(d, "#page-number") == "Page 1")
        d.find_element(By.ID, "clear-filter").click()
        check.wait("the filter clears", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#orders-table tbody tr")) == 7)

        # An open order's detail turns PAID on its own too.
        second = made[-2]
        d.find_element(By.CSS_SELECTOR, f'tr[data-order-id="{second["id"]}"] a.order-link').click()
        check.wait("an open order's detail opens", lambda d: text_of(d, "#detail-id") == second["id"])
        server.sandbox_control(f"/razorpay/orders/{second['providerOrderId']}/complete", {"status": "paid"})
        check.wait("the open detail turns PAID without a reload",
                   lambda d: d.find_element(By.ID, "order-facts").get_attribute("data-status") == "PAID")
        check.expect("still no reload", d.execute_script("return window.__sameDocument") == "yes")
        d.find_element(By.LINK_TEXT, "← Orders").click()
        check.wait("back to the list", lambda d: d.find_elements(By.CSS_SELECTOR, row + " a.order-link"))

        # The detail: timeline, payments, webhooks, routing; reprocess a webhook.
        d.find_element(By.CSS_SELECTOR, row + " a.order-link").click()
        check.wait("the order's detail opens", lambda d: text_of(d, "#detail-id") == newest["id"])
        check.expect("the detail says PAID", d.find_element(By.ID, "order-facts").get_attribute("data-status") == "PAID")
        check.wait("its webhooks are listed", lambda d: d.find_elements(By.CSS_SELECTOR, "#order-webhooks tr[data-webhook-id]"))
        check.expect("its timeline is listed", "PAID" in d.find_element(By.ID, "view").text)
        shot(d, "ops-order-detail.png")
        d.find_element(By.CSS_SELECTOR, "#order-webhooks button.reprocess").click()
        outcome = check.wait("reprocessing a webhook answers",
                             lambda d: (lambda t: t if t and t != "Reprocessing…" else False)(text_of(d, "#order-webhooks .result")))
        check.expect(f"the answer is an outcome or NOT_IMPLEMENTED ({outcome!r})",
                     outcome.startswith("Reprocessed:") or "not implemented" in outcome)

        # Every other view renders (a root field not built yet shows its NOT_IMPLEMENTED notice).
        views = [("counts", "Order status counts by provider", "ops-status-counts.png"),
                 ("reconcile", "Orders needing reconciliation", "ops-reconciliation.png"),
                 ("webhooks", "Webhook log", "ops-webhooks.png"),
                 ("providers", "Provider health", "ops-providers.png"),
                 ("routing", "Routing rules", "ops-routing-rules.png"),
                 ("rewards", "Reward offers", "ops-reward-offers.png"),
                 ("bills", "Setu bill payments", "ops-bill-payments.png")]
        for name, title, file in views:
            d.find_element(By.CSS_SELECTOR, f'#nav a[data-view="{name}"]').click()
            check.wait(f"the {name} view renders", heading_is(title))
            if name == "counts":
                check.wait("the bar chart shows 2 PAID for RAZORPAY",
                           lambda d: d.find_elements(By.CSS_SELECTOR, 'rect[data-provider="RAZORPAY"][data-status="PAID"][data-count="2"]'))
            if name == "webhooks":
                check.wait("the webhook log lists the sandbox's webhooks", lambda d: d.find_elements(By.CSS_SELECTOR, "#webhook-log tr[data-webhook-id]"))
            if name == "providers":
                check.wait("provider health lists RAZORPAY", lambda d: d.find_elements(By.CSS_SELECTOR, 'tr[data-provider="RAZORPAY"]'))
            if name == "routing" and not d.find_elements(By.CSS_SELECTOR, ".not-implemented"):
                form = d.find_element(By.ID, "rule-form")
                form.find_element(By.NAME, "name").send_keys("Browser test: UPI to Cashfree")
                priority = form.find_element(By.NAME, "priority")
                priority.clear()
                priority.send_keys("10")
                form.find_element(By.NAME, "providers").send_keys("CASHFREE, RAZORPAY")
                form.find_element(By.CSS_SELECTOR, 'input[name="methods"][value="UPI"]').click()
                form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
                check.wait("a routing rule made on the page is listed",
                           lambda d: "Browser test: UPI to Cashfree" in text_of(d, "#view table"))
            if name == "rewards" and not d.find_elements(By.CSS_SELECTOR, ".not-implemented"):
                form = d.find_element(By.ID, "offer-form")
                form.find_element(By.NAME, "name").send_keys("Browser test cashback")
                form.find_element(By.NAME, "partnerName").send_keys("Sandbox Partner")
                form.find_element(By.NAME, "coupons").send_keys("BROWSER-1\nBROWSER-2")
                form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
                check.wait("a reward offer made on the page is listed with its 2 coupons",
                           lambda d: "Browser test cashback" in text_of(d, "#view table") and "Sandbox Partner" in text_of(d, "#view table"))
            time.sleep(0.3)
            shot(d, file)

        # Sign out forgets the key.
        d.find_element(By.ID, "sign-out").click()
        check.wait("signing out shows the sign-in form", lambda d: d.find_element(By.ID, "login").is_displayed())
        check.expect("the key is gone", d.execute_script("return sessionStorage.getItem('payql.ops.key')") is None)

        # The GraphQL explorer: a browser's GET /graphql.
        d.get(server.base + "/graphql")
        check.wait("GET /graphql in a browser shows the explorer", lambda d: "GraphQL explorer" in d.title)
        headers = d.find_element(By.ID, "headers")
        headers.clear()
        headers.send_keys(json.dumps({"Authorization": f"Bearer {ops_key}"}))
        d.find_element(By.ID, "reload-schema").click()
        check.wait("the explorer shows the schema's docs", lambda d: "Root types" in text_of(d, "#docs-body"))
        d.find_element(By.ID, "run").click()
        check.wait("the explorer runs a query", lambda d: '"OPS"' in text_of(d, "#result"))
        d.find_element(By.ID, "docs-search").send_keys("OrderFilter")
        check.wait("the docs search finds OrderFilter", lambda d: d.find_elements(By.CSS_SELECTOR, "#docs-body a"))
        d.find_element(By.CSS_SELECTOR, "#docs-body a").click()
        check.wait("the docs show OrderFilter's input fields", lambda d: "needsReconciliation" in text_of(d, "#docs-body"))
        headers.clear()
        headers.send_keys('{"Authorization": "Bearer …"}')  # the screenshot does not show the key
        shot(d, "graphql-explorer.png")

        print(f"ops page browser test: {check.passed} checks passed; screenshots in {SHOTS}", flush=True)
        return 0
    except Exception as error:  # noqa: BLE001 — report, keep the evidence, fail
        print(f"ops page browser test FAILED: {error}", file=sys.stderr, flush=True)
        if driver is not None:
            try:
                failure = os.path.join(tempfile.gettempdir(), "payql-ops-page-failure.png")
                driver.save_screenshot(failure)
                print(f"  (failure screenshot: {failure})", file=sys.stderr)
            except Exception:  # noqa: BLE001
                pass
        print("payql serve log (tail):\n" + server.log()[-3000:] if os.path.exists(server.log_path) else "", file=sys.stderr)
        return 1
    finally:
        if driver is not None:
            driver.quit()
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
