// PayQL's ops page: plain JavaScript, no dependencies, no build step. It talks only to
// this server's /graphql with the OPS key kept in this tab's sessionStorage (never in
// a URL, never in localStorage). Every value from the server reaches the page as text
// (textContent / attributes), never as HTML.
"use strict";

(function () {
  const KEY = "payql.ops.key";
  const store = window.sessionStorage;
  const $ = (id) => document.getElementById(id);
  /** Browsers keep about six connections per host; a subscription holds one. */
  const MAX_STREAMS = 4;
  const POLL_MS = 5000;
  const OPEN_STATUSES = ["CREATED", "ATTEMPTED", "PENDING"];
  const ENUMS = ["OrderStatus", "Provider", "CheckoutFlow", "PaymentMethod", "WebhookOutcome", "BillPaymentStatus",
    "BillConfirmationStatus", "RewardAction"];
  let enums = {};

  // ---------------------------------------------------------------- DOM helpers

  /** An element; `attrs` keys: class, text, on<event>, anything else as an attribute; children may nest in arrays. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    setAttributes(node, attrs);
    append(node, children);
    return node;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    setAttributes(node, attrs);
    append(node, children);
    return node;
  }

  function setAttributes(node, attrs) {
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value == null || value === false) continue;
      if (name === "text") node.textContent = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
  }

  function append(node, children) {
    for (const child of children) {
      if (child == null || child === false) continue;
      if (Array.isArray(child)) append(node, child);
      else node.append(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
    }
  }

  function view(...children) {
    const root = $("view");
    root.replaceChildren();
    append(root, children);
  }

  function money(value) {
    return value ? `${value.decimal} ${value.currency}` : "—";
  }

  function when(text) {
    if (!text) return "—";
    const date = new Date(text);
    return isNaN(date) ? text : date.toLocaleString();
  }

  function shortID(id) {
    return id.length > 14 ? `${id.slice(0, 6)}…${id.slice(-6)}` : id;
  }

  function badge(value, kind) {
    return el("span", { class: `badge ${kind || ""} v-${value}`, "data-value": value, text: value });
  }

  function table(headers, rows, empty) {
    if (!rows.length) return el("p", { class: "muted", text: empty || "Nothing here." });
    return el("table", {}, el("thead", {}, el("tr", {}, headers.map((h) => el("th", { text: h })))), el("tbody", {}, rows));
  }

  /** "500" or "499.50" (rupees) → "49950" (paise), exactly: no floating point for money. */
  function toMinorUnits(text) {
    const match = /^\s*(\d{1,15})(?:\.(\d{1,2}))?\s*$/.exec(text);
    if (!match) throw new Error(`"${text}" is not an amount like 500 or 499.50`);
    return (BigInt(match[1]) * 100n + BigInt((match[2] || "").padEnd(2, "0"))).toString();
  }

  function isoFromLocal(value) {
    if (!value) return null;
    const date = new Date(value);
    if (isNaN(date)) throw new Error(`"${value}" is not a date and time`);
    return date.toISOString();
  }

  function localFromISO(value) {
    if (!value) return "";
    const date = new Date(value);
    if (isNaN(date)) return "";
    const pad = (n) => String(n).padStart(2, "0");
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
  }

  function checkboxes(name, values, checked) {
    return el("fieldset", { class: "checks", "data-name": name }, el("legend", { text: name }),
      (values || []).map((value) => el("label", {},
        el("input", { type: "checkbox", name, value, checked: (checked || []).includes(value) }), value)));
  }

  function checkedValues(form, name) {
    return [...form.querySelectorAll(`input[type=checkbox][name="${name}"]:checked`)].map((box) => box.value);
  }

  function field(label, input) {
    return el("label", { class: "field" }, el("span", { text: label }), input);
  }

  function tristate(name, value) {
    return el("select", { name },
      el("option", { value: "", text: "any", selected: value == null }),
      el("option", { value: "true", text: "yes", selected: value === true }),
      el("option", { value: "false", text: "no", selected: value === false }));
  }

  function readTristate(form, name) {
    const value = form.elements[name].value;
    return value === "" ? null : value === "true";
  }

  // ---------------------------------------------------------------- GraphQL

  class SignedOut extends Error {}

  /** POSTs an operation with the stored key; resolves to { data, errors } (GraphQL errors are not thrown). */
  async function gql(query, variables) {
    const key = store.getItem(KEY);
    if (!key) { showLogin(""); throw new SignedOut("signed out"); }
    const answer = await post(key, query, variables, "application/graphql-response+json, application/json;q=0.9");
    if (answer.status === 401) {
      showLogin(`The server no longer accepts this key (${firstMessage(answer.json)}). Sign in again.`);
      throw new SignedOut("key refused");
    }
    if (!answer.json) throw new Error(`HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
    return { data: answer.json.data || null, errors: answer.json.errors || [], status: answer.status };
  }

  async function post(key, query, variables, accept, signal) {
    const response = await fetch("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept, authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables: variables || {} }),
      credentials: "omit", cache: "no-store", signal,
    });
    if (accept === "text/event-stream" && response.ok && (response.headers.get("content-type") || "").startsWith("text/event-stream")) {
      return { status: response.status, response };
    }
    const text = await response.text();
    let json = null;
    try { json = JSON.parse(text); } catch (_) { /* reported as text */ }
    return { status: response.status, json, text };
  }

  function firstMessage(json) {
    const error = json && json.errors && json.errors[0];
    if (!error) return "no message";
    const code = error.extensions && error.extensions.code;
    return code ? `${code}: ${error.message}` : error.message;
  }

  /** The errors of a result, shown kindly: NOT_IMPLEMENTED says which part is still being built. */
  function problems(errors) {
    if (!errors || !errors.length) return null;
    return el("div", { class: "problems" }, errors.map((error) => {
      const code = error.extensions && error.extensions.code;
      const where = error.path ? error.path.join(".") : "";
      if (code === "NOT_IMPLEMENTED") {
        return el("p", { class: "notice not-implemented", "data-code": code },
          `Not implemented on this server yet: `, el("code", { text: where || "this field" }),
          ` answers NOT_IMPLEMENTED. This view fills in once that part of PayQL lands.`);
      }
      return el("p", { class: "error", "data-code": code || "" }, code ? `${code}: ` : "", error.message, where ? ` (at ${where})` : "");
    }));
  }

  function userErrorText(errors) {
    return errors.map((e) => `${e.code}: ${e.message}${e.field ? ` (${e.field.join(".")})` : ""}`).join("; ");
  }

  /** Runs a mutation whose payload has userErrors; resolves to a line of text saying what happened. */
  async function mutate(name, query, variables, describe) {
    const result = await gql(query, variables);
    const notImplemented = result.errors.find((e) => e.extensions && e.extensions.code === "NOT_IMPLEMENTED");
    if (notImplemented) return { ok: false, text: `${name} is not implemented on this server yet (NOT_IMPLEMENTED).` };
    if (result.errors.length) return { ok: false, text: result.errors.map((e) => `${(e.extensions && e.extensions.code) || "ERROR"}: ${e.message}`).join("; ") };
    const payload = result.data && result.data[name];
    if (!payload) return { ok: false, text: `${name} returned nothing.` };
    if (payload.userErrors && payload.userErrors.length) return { ok: false, text: userErrorText(payload.userErrors) };
    return { ok: true, text: describe(payload), payload };
  }

  function resultLine(target, outcome) {
    target.textContent = outcome.text;
    target.className = `result ${outcome.ok ? "ok" : "error"}`;
  }

  async function loadEnums() {
    const query = `query OpsEnums { ${ENUMS.map((name) => `${name}: __type(name: "${name}") { enumValues { name } }`).join(" ")} }`;
    const result = await gql(query);
    enums = {};
    for (const name of ENUMS) {
      const type = result.data && result.data[name];
      enums[name] = type && type.enumValues ? type.enumValues.map((v) => v.name) : [];
    }
  }

  // ---------------------------------------------------------------- live updates (GraphQL over SSE)

  const live = { streams: [], timers: [], refused: null };

  function setLive(text, mode) {
    const badgeNode = $("live");
    badgeNode.hidden = !text;
    badgeNode.textContent = text || "";
    badgeNode.className = `live ${mode || ""}`;
    badgeNode.dataset.mode = mode || "";
  }

  function stopLive() {
    for (const stream of live.streams) stream.close();
    for (const timer of live.timers) clearInterval(timer);
    live.streams = [];
    live.timers = [];
    setLive("", "");
  }

  /**
   * One subscription over GraphQL-over-SSE's distinct-connections mode: POST /graphql with
   * Accept: text/event-stream; `next` events carry results, `complete` ends it. A stream that
   * breaks is opened again; a server that answers with an error calls `refused(reason)`.
   */
  function subscribe(query, variables, onData, refused) {
    const key = store.getItem(KEY);
    let closed = false;
    let controller = null;
    async function connect() {
      controller = new AbortController();
      let answer;
      try {
        answer = await post(key, query, variables, "text/event-stream", controller.signal);
      } catch (_) {
        if (!closed) setTimeout(connect, 3000);
        return;
      }
      if (!answer.response) {
        if (!closed) refused(`HTTP ${answer.status}, ${firstMessage(answer.json)}`);
        return;
      }
      const reader = answer.response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          buffer = buffer.replace(/\r\n/g, "\n");
          let cut;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            let event = "message";
            const data = [];
            for (const line of block.split("\n")) {
              if (line === "" || line.startsWith(":")) continue;
              const colon = line.indexOf(":");
              const name = colon < 0 ? line : line.slice(0, colon);
              let text = colon < 0 ? "" : line.slice(colon + 1);
              if (text.startsWith(" ")) text = text.slice(1);
              if (name === "event") event = text;
              else if (name === "data") data.push(text);
            }
            if (event === "next" && data.length) {
              const payload = JSON.parse(data.join("\n"));
              if (payload.data) onData(payload.data);
              if (payload.errors && payload.errors.length && !payload.data) { closed = true; refused(firstMessage(payload)); }
            } else if (event === "complete") {
              closed = true;
            }
          }
          if (closed) break;
        }
      } catch (_) {
        /* aborted or broken: reconnect below unless closed */
      }
      if (!closed) setTimeout(connect, 3000);
    }
    connect();
    const stream = { close() { closed = true; if (controller) controller.abort(); } };
    live.streams.push(stream);
    return stream;
  }

  const ORDER_ROW = `id receipt provider providerOrderId status providerStatus needsReconciliation flow method
    amount { amount currency decimal } createdAt updatedAt`;

  /**
   * Keeps `ids` (orders) current: `orderUpdated` per order over SSE (at most MAX_STREAMS at
   * once); if the server refuses subscriptions, a gentle poll of the same orders instead.
   */
  function watchOrders(ids, onOrder, selection) {
    const fields = selection || ORDER_ROW;
    stopLive();
    if (!ids.length) { setLive("Live: no open orders on screen", "idle"); return; }
    const watched = ids.slice(0, MAX_STREAMS);
    const extra = ids.length - watched.length;
    let polling = false;
    function poll(reason) {
      if (polling) return;
      polling = true;
      live.refused = reason;
      for (const stream of live.streams) stream.close();
      live.streams = [];
      setLive(`Live updates: the server refused the subscription (${reason}); polling every ${POLL_MS / 1000} s instead`, "poll");
      const timer = setInterval(async () => {
        try {
          const result = await gql(`query OpsPoll($ids: [ID!]!) { nodes(ids: $ids) { ... on Order { ${fields} } } }`, { ids: watched });
          for (const order of (result.data && result.data.nodes) || []) if (order) onOrder(order);
        } catch (error) {
          if (error instanceof SignedOut) clearInterval(timer);
        }
      }, POLL_MS);
      live.timers.push(timer);
    }
    if (live.refused) { poll(live.refused); return; }
    for (const id of watched) {
      subscribe(`subscription OpsOrderUpdated($orderId: ID!) { orderUpdated(orderId: $orderId) { ${fields} } }`, { orderId: id },
        (data) => { if (data.orderUpdated) onOrder(data.orderUpdated); }, poll);
    }
    if (!polling) {
      setLive(`Live: ${watched.length} open order${watched.length === 1 ? "" : "s"} over SSE${extra > 0 ? ` (${extra} more not watched: Refresh)` : ""}`, "sse");
    }
  }

  // ---------------------------------------------------------------- orders

  const orders = { filter: {}, first: 20, after: null, previous: [], page: 1 };

  function orderFilterForm(onApply) {
    const f = orders.filter;
    const amount = (value) => (value ? (BigInt(value.amount) / 100n).toString() + "." + String(BigInt(value.amount) % 100n).padStart(2, "0") : "");
    const form = el("form", { class: "filters", id: "order-filter" },
      el("div", { class: "check-row" },
        checkboxes("status", enums.OrderStatus, f.status), checkboxes("provider", enums.Provider, f.provider),
        checkboxes("flow", enums.CheckoutFlow, f.flow), checkboxes("method", enums.PaymentMethod, f.method)),
      el("div", { class: "field-row" },
        field("Receipt", el("input", { name: "receipt", value: f.receipt || "" })),
        field("Provider order id", el("input", { name: "providerOrderId", value: f.providerOrderId || "" })),
        field("Customer id", el("input", { name: "customerId", value: f.customerId || "" })),
        field("Needs reconciliation", tristate("needsReconciliation", f.needsReconciliation)),
        field("Bill payment", tristate("isBillPayment", f.isBillPayment))),
      el("div", { class: "field-row" },
        field("Min amount (₹)", el("input", { name: "minAmount", inputmode: "decimal", value: amount(f.minAmount) })),
        field("Max amount (₹)", el("input", { name: "maxAmount", inputmode: "decimal", value: amount(f.maxAmount) })),
        field("Created after", el("input", { name: "createdAfter", type: "datetime-local", value: localFromISO(f.createdAfter) })),
        field("Created before", el("input", { name: "createdBefore", type: "datetime-local", value: localFromISO(f.createdBefore) })),
        field("Per page", el("select", { name: "first" }, [5, 10, 20, 50, 100].map((n) => el("option", { value: n, text: n, selected: n === orders.first }))))),
      el("div", { class: "actions" },
        el("button", { type: "submit", id: "apply-filter", text: "Apply filter" }),
        el("button", { type: "button", id: "clear-filter", text: "Clear", onclick: () => { orders.filter = {}; orders.first = 20; onApply(); } })),
      el("p", { class: "error", id: "filter-error" }));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      try {
        const filter = {};
        for (const name of ["status", "provider", "flow", "method"]) {
          const values = checkedValues(form, name);
          if (values.length) filter[name] = values;
        }
        for (const name of ["receipt", "providerOrderId", "customerId"]) {
          const value = form.elements[name].value.trim();
          if (value) filter[name] = value;
        }
        for (const name of ["needsReconciliation", "isBillPayment"]) {
          const value = readTristate(form, name);
          if (value != null) filter[name] = value;
        }
        for (const name of ["minAmount", "maxAmount"]) {
          const value = form.elements[name].value.trim();
          if (value) filter[name] = { amount: toMinorUnits(value), currency: "INR" };
        }
        for (const name of ["createdAfter", "createdBefore"]) {
          const value = isoFromLocal(form.elements[name].value);
          if (value) filter[name] = value;
        }
        orders.filter = filter;
        orders.first = Number(form.elements.first.value);
        onApply();
      } catch (error) {
        $("filter-error").textContent = error.message;
      }
    });
    return form;
  }

  function orderRow(order) {
    return el("tr", { "data-order-id": order.id, "data-updated-at": order.updatedAt },
      el("td", { class: "created", text: when(order.createdAt) }),
      el("td", {}, el("a", { href: `#/orders/${encodeURIComponent(order.id)}`, class: "order-link", title: order.id, text: shortID(order.id) })),
      el("td", { class: "receipt", text: order.receipt }),
      el("td", { text: order.provider }),
      el("td", { class: "status" }, badge(order.status, "status")),
      el("td", { class: "provider-status", text: order.providerStatus || "—" }),
      el("td", { class: "amount", text: money(order.amount) }),
      el("td", { class: "mono", text: order.providerOrderId || "—" }),
      el("td", {}, order.needsReconciliation ? badge("RECONCILE", "warn") : ""));
  }

  function updateOrderRow(order) {
    const row = document.querySelector(`tr[data-order-id="${CSS.escape(order.id)}"]`);
    if (!row || row.dataset.updatedAt === order.updatedAt) return;
    const fresh = orderRow(order);
    row.replaceWith(fresh);
    fresh.classList.add("flash");
    setTimeout(() => fresh.classList.remove("flash"), 1500);
  }

  async function showOrders() {
    const reload = () => { orders.after = null; orders.previous = []; orders.page = 1; showOrders(); };
    const result = await gql(`query OpsOrders($filter: OrderFilter, $first: Int, $after: String) {
        orders(filter: $filter, first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${ORDER_ROW} } } }`,
    { filter: orders.filter, first: orders.first, after: orders.after });
    const connection = result.data && result.data.orders;
    const nodes = connection ? connection.nodes : [];
    const pager = el("div", { class: "pager" },
      el("button", { type: "button", id: "newer-page", text: "← Newer", disabled: orders.previous.length === 0,
        onclick: () => { orders.after = orders.previous.pop() || null; orders.page--; showOrders(); } }),
      el("span", { id: "page-number", text: `Page ${orders.page}` }),
      el("button", { type: "button", id: "older-page", text: "Older →", disabled: !(connection && connection.pageInfo.hasNextPage),
        onclick: () => { orders.previous.push(orders.after); orders.after = connection.pageInfo.endCursor; orders.page++; showOrders(); } }));
    view(el("h2", { text: "Orders" }), orderFilterForm(reload), problems(result.errors),
      el("div", { class: "toolbar" }, el("button", { type: "button", id: "refresh", text: "Refresh", onclick: () => showOrders() }), pager),
      el("div", { id: "orders-table" },
        table(["Created", "Order", "Receipt", "Provider", "Status", "Provider status", "Amount", "Provider order", ""], nodes.map(orderRow),
          "No orders match this filter.")));
    watchOrders(nodes.filter((o) => OPEN_STATUSES.includes(o.status) || o.needsReconciliation).map((o) => o.id), updateOrderRow);
  }

  // ---------------------------------------------------------------- order detail

  const ORDER_DETAIL = `
    id receipt provider providerOrderId status providerStatus needsReconciliation flow method description attempts
    amount { amount currency decimal } amountPaid { decimal currency } amountDue { decimal currency } amountRefunded { decimal currency }
    customer { id name email phone } createdAt updatedAt paidAt lastSyncedAt expiresAt
    timeline { at kind status previousStatus providerStatus source message webhookEvent { id } }
    payments { id providerPaymentId status providerStatus amount { decimal currency } method bankReference verified createdAt capturedAt
      failure { code description } }
    refunds { id reference providerRefundId status amount { decimal currency } needsReconciliation createdAt processedAt failureReason }
    webhookEvents(first: 50) { nodes { id provider eventId eventType outcome deliveries receivedAt processedAt error } }
    routing { provider reason rule { id name } failoverOrder candidates { provider eligible rejectionReasons detail health } evaluatedAt }
    billPayment { id setuOrderId status confirmation { status } }`;

  /**
   * The detail, kept current: `orderUpdated` carries the whole detail selection, so an event
   * re-renders in place (the first event, the order as it is now, changes nothing).
   */
  async function showOrder(id) {
    const result = await gql(`query OpsOrder($id: ID!) { order(id: $id) { ${ORDER_DETAIL} } }`, { id });
    const order = result.data && result.data.order;
    if (!order) {
      view(el("p", {}, el("a", { href: "#/orders", text: "← Orders" })), problems(result.errors),
        el("p", { class: "muted", text: `No order ${id}.` }));
      return;
    }
    let shown = JSON.stringify(order);
    renderOrder(order, result.errors);
    if (OPEN_STATUSES.includes(order.status) || order.needsReconciliation) {
      watchOrders([order.id], (fresh) => {
        const text = JSON.stringify(fresh);
        if (text === shown || !location.hash.startsWith("#/orders/")) return;
        shown = text;
        renderOrder(fresh, []);
      }, ORDER_DETAIL);
    } else {
      setLive("Live: this order is final", "idle");
    }
  }

  function renderOrder(order, errors) {
    const syncResult = el("span", { class: "result", id: "sync-result" });
    const facts = [
      ["Status", badge(order.status, "status")], ["Provider status", order.providerStatus || "—"], ["Provider", order.provider],
      ["Provider order id", order.providerOrderId || "—"], ["Receipt", order.receipt], ["Amount", money(order.amount)],
      ["Paid", money(order.amountPaid)], ["Due", money(order.amountDue)], ["Refunded", money(order.amountRefunded)],
      ["Flow", order.flow], ["Method", order.method || "any"], ["Attempts", order.attempts == null ? "—" : String(order.attempts)],
      ["Needs reconciliation", order.needsReconciliation ? "yes" : "no"],
      ["Customer", order.customer ? `${order.customer.name || ""} ${order.customer.email || ""} ${order.customer.phone || ""} (${order.customer.id})` : "—"],
      ["Created", when(order.createdAt)], ["Updated", when(order.updatedAt)], ["Paid at", when(order.paidAt)],
      ["Last synced", when(order.lastSyncedAt)], ["Expires", when(order.expiresAt)],
      ["Bill payment", order.billPayment ? `${order.billPayment.setuOrderId} · ${order.billPayment.status} · confirmation ${order.billPayment.confirmation ? order.billPayment.confirmation.status : "—"}` : "—"],
    ];
    const webhooks = (order.webhookEvents && order.webhookEvents.nodes) || [];
    const routing = order.routing;
    view(
      el("p", {}, el("a", { href: "#/orders", text: "← Orders" })),
      el("h2", {}, "Order ", el("span", { class: "mono", id: "detail-id", text: order.id })),
      problems(errors),
      el("div", { class: "toolbar" },
        el("button", { type: "button", id: "sync-order", text: "Sync with provider", onclick: async () => {
          syncResult.textContent = "Syncing…";
          resultLine(syncResult, await mutate("syncOrder", `mutation OpsSync($id: ID!) { syncOrder(input: { orderId: $id }) {
              order { id status needsReconciliation } userErrors { code message field } } }`, { id: order.id },
          (p) => `Synced: ${p.order.status}${p.order.needsReconciliation ? " (still needs reconciliation)" : ""}`));
          refreshDetail(order.id);
        } }), syncResult,
        el("button", { type: "button", text: "Refresh", onclick: () => showOrder(order.id) })),
      el("dl", { class: "facts", id: "order-facts", "data-status": order.status }, facts.map(([name, value]) => [el("dt", { text: name }), el("dd", {}, value)])),
      el("h3", { text: "Timeline" }),
      table(["At", "Event", "Status", "From", "Provider status", "Source", "Message"], order.timeline.map((e) => el("tr", {},
        el("td", { text: when(e.at) }), el("td", { text: e.kind }), el("td", {}, badge(e.status, "status")),
        el("td", { text: e.previousStatus || "—" }), el("td", { text: e.providerStatus || "—" }), el("td", { text: e.source }),
        el("td", { text: e.message || "" })))),
      el("h3", { text: "Payments" }),
      table(["Payment", "Status", "Provider status", "Amount", "Method", "Bank reference", "Verified", "Captured", "Failure"],
        order.payments.map((p) => el("tr", {}, el("td", { class: "mono", title: p.id, text: p.providerPaymentId }), el("td", {}, badge(p.status, "status")),
          el("td", { text: p.providerStatus }), el("td", { text: money(p.amount) }), el("td", { text: p.method || "—" }),
          el("td", { class: "mono", text: p.bankReference || "—" }), el("td", { text: p.verified ? "yes" : "no" }), el("td", { text: when(p.capturedAt) }),
          el("td", { text: p.failure ? `${p.failure.code}: ${p.failure.description || ""}` : "" }))), "No payments yet."),
      el("h3", { text: "Refunds" }),
      table(["Reference", "Provider refund", "Status", "Amount", "Created", "Processed", "Failure"],
        order.refunds.map((r) => el("tr", {}, el("td", { class: "mono", text: r.reference }), el("td", { class: "mono", text: r.providerRefundId || "—" }),
          el("td", {}, badge(r.status, "status"), r.needsReconciliation ? badge("RECONCILE", "warn") : ""), el("td", { text: money(r.amount) }),
          el("td", { text: when(r.createdAt) }), el("td", { text: when(r.processedAt) }), el("td", { text: r.failureReason || "" }))), "No refunds."),
      el("h3", { text: "Webhooks" }),
      el("div", { id: "order-webhooks" }, webhookTable(webhooks, () => refreshDetail(order.id))),
      el("h3", { text: "Routing decision" }),
      routing ? el("div", { class: "routing", id: "routing-decision" },
        el("p", {}, "Chose ", el("strong", { text: routing.provider || "no provider" }), `: ${routing.reason}`,
          routing.rule ? ` (rule “${routing.rule.name}”)` : " (defaults)", ` · failover ${routing.failoverOrder.join(" → ") || "none"}`),
        table(["Candidate", "Eligible", "Health", "Why not", "Detail"], routing.candidates.map((c) => el("tr", {},
          el("td", { text: c.provider }), el("td", { text: c.eligible ? "yes" : "no" }), el("td", {}, badge(c.health, "health")),
          el("td", { text: c.rejectionReasons.join(", ") }), el("td", { text: c.detail || "" }))), "No candidates recorded."))
        : el("p", { class: "muted", text: "No routing decision recorded for this order." }));
  }

  let refreshPending = null;
  function refreshDetail(id) {
    if (refreshPending) return;
    refreshPending = setTimeout(() => {
      refreshPending = null;
      if (location.hash === `#/orders/${encodeURIComponent(id)}`) { stopLive(); showOrder(id); }
    }, 200);
  }

  // ---------------------------------------------------------------- webhooks

  function webhookTable(events, afterReprocess) {
    return table(["Received", "Provider", "Event", "Outcome", "Deliveries", "Order", "Error", "Payload", ""], events.map((event) => {
      const result = el("span", { class: "result" });
      return el("tr", { "data-webhook-id": event.id },
        el("td", { text: when(event.receivedAt) }), el("td", { text: event.provider }), el("td", { class: "mono", text: event.eventType }),
        el("td", { class: "outcome" }, badge(event.outcome, "outcome")), el("td", { text: String(event.deliveries) }),
        el("td", {}, event.order ? el("a", { href: `#/orders/${encodeURIComponent(event.order.id)}`, text: shortID(event.order.id) }) : "—"),
        el("td", { class: "error-text", text: event.error || "" }),
        el("td", {}, event.payload !== undefined && event.payload !== null
          ? el("details", {}, el("summary", { text: "show" }), el("pre", { text: JSON.stringify(event.payload, null, 2) })) : "—"),
        el("td", {}, el("button", { type: "button", class: "reprocess", text: "Reprocess", onclick: async (clicked) => {
          clicked.target.disabled = true;
          result.textContent = "Reprocessing…";
          const outcome = await mutate("reprocessWebhookEvent", `mutation OpsReprocess($id: ID!) {
              reprocessWebhookEvent(input: { webhookEventId: $id }) { webhookEvent { id outcome error processedAt } userErrors { code message field } } }`,
          { id: event.id }, (p) => `Reprocessed: ${p.webhookEvent ? p.webhookEvent.outcome : "done"}`);
          resultLine(result, outcome);
          clicked.target.disabled = false;
          if (outcome.ok && afterReprocess) setTimeout(afterReprocess, 1200);
        } }), result));
    }), "No webhooks.");
  }

  const webhooks = { filter: {}, after: null, previous: [], page: 1 };

  async function showWebhooks() {
    const result = await gql(`query OpsWebhooks($filter: WebhookEventFilter, $after: String) {
        webhookEvents(filter: $filter, first: 25, after: $after) { pageInfo { hasNextPage endCursor }
          nodes { id provider eventId eventType outcome deliveries receivedAt processedAt error order { id } payload } } }`,
    { filter: webhooks.filter, after: webhooks.after });
    const connection = result.data && result.data.webhookEvents;
    const form = el("form", { class: "filters" },
      el("div", { class: "check-row" }, checkboxes("provider", enums.Provider, webhooks.filter.provider),
        checkboxes("outcome", enums.WebhookOutcome, webhooks.filter.outcome)),
      el("div", { class: "field-row" }, field("Event type", el("input", { name: "eventType", value: webhooks.filter.eventType || "" })),
        field("Order id", el("input", { name: "orderId", value: webhooks.filter.orderId || "" }))),
      el("div", { class: "actions" }, el("button", { type: "submit", text: "Apply filter" })));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const filter = {};
      for (const name of ["provider", "outcome"]) { const values = checkedValues(form, name); if (values.length) filter[name] = values; }
      for (const name of ["eventType", "orderId"]) { const value = form.elements[name].value.trim(); if (value) filter[name] = value; }
      Object.assign(webhooks, { filter, after: null, previous: [], page: 1 });
      showWebhooks();
    });
    view(el("h2", { text: "Webhook log" }), form, problems(result.errors),
      el("div", { class: "toolbar" }, el("button", { type: "button", text: "Refresh", onclick: showWebhooks }),
        el("div", { class: "pager" },
          el("button", { type: "button", text: "← Newer", disabled: webhooks.previous.length === 0,
            onclick: () => { webhooks.after = webhooks.previous.pop() || null; webhooks.page--; showWebhooks(); } }),
          el("span", { text: `Page ${webhooks.page}` }),
          el("button", { type: "button", text: "Older →", disabled: !(connection && connection.pageInfo.hasNextPage),
            onclick: () => { webhooks.previous.push(webhooks.after); webhooks.after = connection.pageInfo.endCursor; webhooks.page++; showWebhooks(); } }))),
      el("div", { id: "webhook-log" }, webhookTable(connection ? connection.nodes : [], showWebhooks)));
  }

  // ---------------------------------------------------------------- status counts (inline SVG)

  async function showCounts() {
    const providers = enums.Provider;
    const base = Object.assign({}, orders.filter);
    delete base.provider;
    const query = `query OpsCounts(${providers.map((p) => `$f_${p}: OrderFilter`).join(", ")}) {
      ${providers.map((p) => `${p}: orderStatusCounts(filter: $f_${p}) { status count }`).join("\n")} }`;
    const variables = {};
    for (const p of providers) variables[`f_${p}`] = Object.assign({}, base, { provider: [p] });
    const result = await gql(query, variables);
    const statuses = enums.OrderStatus;
    const counts = providers.map((p) => {
      const byStatus = {};
      for (const row of (result.data && result.data[p]) || []) byStatus[row.status] = row.count;
      return { provider: p, byStatus };
    });
    view(el("h2", { text: "Order status counts by provider" }),
      el("p", { class: "muted", text: Object.keys(base).length ? "With the orders view's filter (provider aside)." : "All orders." }),
      problems(result.errors), barChart(counts, statuses),
      table(["Provider", ...statuses, "Total"], counts.map((c) => el("tr", {}, el("td", { text: c.provider }),
        statuses.map((s) => el("td", { class: "num", text: String(c.byStatus[s] || 0) })),
        el("td", { class: "num", text: String(statuses.reduce((sum, s) => sum + (c.byStatus[s] || 0), 0)) })))),
      el("div", { class: "toolbar" }, el("button", { type: "button", text: "Refresh", onclick: showCounts })));
  }

  /** Grouped bars: one group per provider, one bar per status, drawn as SVG by the page. */
  function barChart(counts, statuses) {
    const highest = Math.max(1, ...counts.flatMap((c) => statuses.map((s) => c.byStatus[s] || 0)));
    const step = Math.ceil(highest / 4);
    const max = step * 4;
    const barWidth = 16;
    const gap = 4;
    const groupWidth = statuses.length * (barWidth + gap) + 28;
    const height = 220;
    const top = 20;
    const bottom = 40;
    const left = 40;
    const width = left + counts.length * groupWidth + 10;
    const plot = height - top - bottom;
    const children = [];
    for (let tick = 0; tick <= 4; tick++) {
      const value = step * tick;
      const y = top + plot - (plot * tick) / 4;
      children.push(svg("line", { x1: left - 4, x2: width, y1: y, y2: y, class: "grid" }));
      children.push(svg("text", { x: left - 8, y: y + 4, class: "axis", "text-anchor": "end" }, String(value)));
    }
    counts.forEach((c, group) => {
      const x0 = left + group * groupWidth + 12;
      statuses.forEach((status, index) => {
        const value = c.byStatus[status] || 0;
        const h = (plot * value) / max;
        const x = x0 + index * (barWidth + gap);
        const bar = svg("rect", { x, y: top + plot - h, width: barWidth, height: Math.max(h, value ? 1 : 0), class: `bar s-${status}`,
          "data-provider": c.provider, "data-status": status, "data-count": value }, svg("title", {}, `${c.provider} ${status}: ${value}`));
        children.push(bar);
        if (value) children.push(svg("text", { x: x + barWidth / 2, y: top + plot - h - 4, class: "value", "text-anchor": "middle" }, String(value)));
      });
      children.push(svg("text", { x: x0 + (statuses.length * (barWidth + gap)) / 2, y: height - bottom + 18, class: "label", "text-anchor": "middle" }, c.provider));
    });
    const legend = el("div", { class: "legend" }, statuses.map((s) => el("span", {}, el("i", { class: `swatch s-${s}` }), s)));
    return el("figure", { class: "chart", id: "status-chart" },
      svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": "Order status counts per provider" }, children), legend);
  }

  // ---------------------------------------------------------------- reconciliation

  async function showReconcile() {
    const result = await gql(`query OpsReconcile { orders(filter: { needsReconciliation: true }, first: 100, order: OLDEST_FIRST) { nodes { ${ORDER_ROW} lastSyncedAt } } }`);
    const nodes = (result.data && result.data.orders.nodes) || [];
    view(el("h2", { text: "Orders needing reconciliation" }),
      el("p", { class: "muted", text: "PayQL does not know these orders' state at the provider (a create timed out, an undocumented status). The reconciler re-reads them on its own; Sync asks the provider now." }),
      problems(result.errors),
      el("div", { class: "toolbar" }, el("button", { type: "button", text: "Refresh", onclick: showReconcile })),
      table(["Created", "Order", "Receipt", "Provider", "Status", "Provider order", "Last synced", ""], nodes.map((order) => {
        const line = el("span", { class: "result" });
        return el("tr", { "data-order-id": order.id, "data-updated-at": order.updatedAt }, el("td", { text: when(order.createdAt) }),
          el("td", {}, el("a", { href: `#/orders/${encodeURIComponent(order.id)}`, text: shortID(order.id) })),
          el("td", { text: order.receipt }), el("td", { text: order.provider }), el("td", {}, badge(order.status, "status")),
          el("td", { class: "mono", text: order.providerOrderId || "—" }), el("td", { text: when(order.lastSyncedAt) }),
          el("td", {}, el("button", { type: "button", text: "Sync", onclick: async () => {
            line.textContent = "Syncing…";
            resultLine(line, await mutate("syncOrder", `mutation OpsSync($id: ID!) { syncOrder(input: { orderId: $id }) {
                order { id status needsReconciliation } userErrors { code message field } } }`, { id: order.id },
            (p) => `${p.order.status}${p.order.needsReconciliation ? ", still unknown" : ", reconciled"}`));
          } }), line));
      }), "No order needs reconciliation."));
  }

  // ---------------------------------------------------------------- providers

  async function showProviders() {
    const result = await gql(`query OpsProviders { providers { provider enabled environment capabilities
        minAmount { decimal currency } maxAmount { decimal currency }
        health { status successRate p99LatencyMs circuitOpen lastError checkedAt } } }`);
    const providers = (result.data && result.data.providers) || [];
    view(el("h2", { text: "Provider health" }), problems(result.errors),
      el("div", { class: "toolbar" }, el("button", { type: "button", text: "Refresh", onclick: showProviders })),
      table(["Provider", "Enabled", "Environment", "Health", "Error rate", "p99 latency", "Circuit", "Last error", "Checked", "Amounts", "Capabilities"],
        providers.map((p) => {
          const rate = p.health.successRate == null ? "—" : `${((1 - p.health.successRate) * 100).toFixed(1)} %`;
          return el("tr", { "data-provider": p.provider }, el("td", { text: p.provider }), el("td", { text: p.enabled ? "yes" : "no" }),
            el("td", { text: p.environment }), el("td", {}, badge(p.health.status, "health")), el("td", { class: "num", text: rate }),
            el("td", { class: "num", text: p.health.p99LatencyMs == null ? "—" : `${p.health.p99LatencyMs} ms` }),
            el("td", { text: p.health.circuitOpen ? "OPEN" : "closed" }), el("td", { class: "error-text", text: p.health.lastError || "" }),
            el("td", { text: when(p.health.checkedAt) }), el("td", { text: `${money(p.minAmount)} – ${money(p.maxAmount)}` }),
            el("td", { class: "small", text: p.capabilities.join(", ") }));
        }), "No providers configured."));
  }

  // ---------------------------------------------------------------- routing rules

  async function showRouting(editing) {
    const result = await gql(`query OpsRouting { routingRules { id name priority enabled providers updatedAt
        conditions { flows methods minAmount { amount decimal } maxAmount { amount decimal } } } }`);
    const rules = (result.data && result.data.routingRules) || [];
    const rule = editing || { name: "", priority: 100, enabled: true, providers: [], conditions: { flows: [], methods: [] } };
    const line = el("span", { class: "result", id: "rule-result" });
    const form = el("form", { class: "editor", id: "rule-form" },
      el("h3", { text: rule.id ? `Edit rule “${rule.name}”` : "New rule" }),
      el("div", { class: "field-row" },
        field("Name", el("input", { name: "name", value: rule.name, required: true })),
        field("Priority (lower runs first)", el("input", { name: "priority", type: "number", value: rule.priority })),
        field("Enabled", el("input", { name: "enabled", type: "checkbox", checked: rule.enabled })),
        field("Providers, in preference order", el("input", { name: "providers", value: rule.providers.join(", "), placeholder: "RAZORPAY, CASHFREE" }))),
      el("div", { class: "check-row" }, checkboxes("flows", enums.CheckoutFlow, rule.conditions.flows),
        checkboxes("methods", enums.PaymentMethod, rule.conditions.methods)),
      el("div", { class: "field-row" },
        field("Min amount (₹)", el("input", { name: "minAmount", value: rule.conditions.minAmount ? rule.conditions.minAmount.decimal : "" })),
        field("Max amount (₹)", el("input", { name: "maxAmount", value: rule.conditions.maxAmount ? rule.conditions.maxAmount.decimal : "" }))),
      el("div", { class: "actions" }, el("button", { type: "submit", text: rule.id ? "Save rule" : "Create rule" }),
        rule.id ? el("button", { type: "button", text: "New rule instead", onclick: () => showRouting(null) }) : null, line));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const conditions = { flows: checkedValues(form, "flows"), methods: checkedValues(form, "methods") };
        for (const name of ["minAmount", "maxAmount"]) {
          const value = form.elements[name].value.trim();
          if (value) conditions[name] = { amount: toMinorUnits(value), currency: "INR" };
        }
        const input = {
          name: form.elements.name.value.trim(), priority: Number(form.elements.priority.value), enabled: form.elements.enabled.checked,
          providers: form.elements.providers.value.split(",").map((p) => p.trim().toUpperCase()).filter(Boolean), conditions,
        };
        if (rule.id) input.id = rule.id;
        const outcome = await mutate("upsertRoutingRule", `mutation OpsRule($input: UpsertRoutingRuleInput!) {
            upsertRoutingRule(input: $input) { routingRule { id name } userErrors { code message field } } }`, { input },
        (p) => `Saved “${p.routingRule.name}”.`);
        resultLine(line, outcome);
        if (outcome.ok) setTimeout(() => showRouting(null), 800);
      } catch (error) {
        resultLine(line, { ok: false, text: error.message });
      }
    });
    const explain = routingExplainForm();
    view(el("h2", { text: "Routing rules" }), problems(result.errors),
      table(["Priority", "Name", "Enabled", "Flows", "Methods", "Amounts", "Providers", "Updated", ""], rules.map((r) => {
        const deleteLine = el("span", { class: "result" });
        return el("tr", { "data-rule-id": r.id }, el("td", { class: "num", text: String(r.priority) }), el("td", { text: r.name }),
          el("td", { text: r.enabled ? "yes" : "no" }), el("td", { text: r.conditions.flows.join(", ") || "any" }),
          el("td", { text: r.conditions.methods.join(", ") || "any" }),
          el("td", { text: `${r.conditions.minAmount ? r.conditions.minAmount.decimal : "0"} – ${r.conditions.maxAmount ? r.conditions.maxAmount.decimal : "∞"}` }),
          el("td", { text: r.providers.join(" → ") }), el("td", { text: when(r.updatedAt) }),
          el("td", {}, el("button", { type: "button", text: "Edit", onclick: () => showRouting(r) }),
            el("button", { type: "button", text: "Delete", onclick: async () => {
              if (!window.confirm(`Delete the routing rule “${r.name}”?`)) return;
              const outcome = await mutate("deleteRoutingRule", `mutation OpsDeleteRule($id: ID!) { deleteRoutingRule(input: { routingRuleId: $id }) {
                  userErrors { code message field } } }`, { id: r.id }, () => "Deleted.");
              resultLine(deleteLine, outcome);
              if (outcome.ok) setTimeout(() => showRouting(null), 800);
            } }), deleteLine));
      }), "No routing rules: the defaults decide."), form, explain);
  }

  function routingExplainForm() {
    const out = el("div", { id: "explain-result" });
    const form = el("form", { class: "editor" }, el("h3", { text: "Explain a route (nothing is created)" }),
      el("div", { class: "field-row" }, field("Amount (₹)", el("input", { name: "amount", value: "500" })),
        field("Flow", el("select", { name: "flow" }, enums.CheckoutFlow.map((f) => el("option", { value: f, text: f })))),
        field("Method", el("select", { name: "method" }, el("option", { value: "", text: "any" }), enums.PaymentMethod.map((m) => el("option", { value: m, text: m }))))),
      el("div", { class: "actions" }, el("button", { type: "submit", text: "Explain" })), out);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const input = { amount: { amount: toMinorUnits(form.elements.amount.value), currency: "INR" }, flow: form.elements.flow.value };
        if (form.elements.method.value) input.method = form.elements.method.value;
        const result = await gql(`query OpsExplain($input: RoutingExplainInput!) { routingExplain(input: $input) {
            provider reason rule { name } failoverOrder candidates { provider eligible rejectionReasons detail health } } }`, { input });
        const d = result.data && result.data.routingExplain;
        out.replaceChildren(...[problems(result.errors), d ? el("p", {}, el("strong", { text: d.provider || "NO ROUTE" }), `: ${d.reason}`,
          ` · failover ${d.failoverOrder.join(" → ") || "none"}`) : null,
        d ? table(["Candidate", "Eligible", "Health", "Why not"], d.candidates.map((c) => el("tr", {}, el("td", { text: c.provider }),
          el("td", { text: c.eligible ? "yes" : "no" }), el("td", {}, badge(c.health, "health")), el("td", { text: c.rejectionReasons.join(", ") })))) : null].filter(Boolean));
      } catch (error) {
        out.replaceChildren(el("p", { class: "error", text: error.message }));
      }
    });
    return form;
  }

  // ---------------------------------------------------------------- reward offers

  const OFFER = `id name action partnerName partnerLogoUrl preAllotText postAllotText termsAndConditions
    minAmount { amount decimal } maxAmount { amount decimal } validFrom validUntil active maxPerCustomer couponsRemaining updatedAt`;

  async function showRewards(editing) {
    const result = await gql(`query OpsOffers { rewardOffers(first: 100) { nodes { ${OFFER} } } }`);
    const offers = (result.data && result.data.rewardOffers.nodes) || [];
    const o = editing || { name: "", action: "PAYMENT", partnerName: "", termsAndConditions: [], active: true, maxPerCustomer: 1 };
    const line = el("span", { class: "result", id: "offer-result" });
    const form = el("form", { class: "editor", id: "offer-form" }, el("h3", { text: o.id ? `Edit offer “${o.name}”` : "New offer" }),
      el("div", { class: "field-row" }, field("Name", el("input", { name: "name", value: o.name, required: true })),
        field("Action", el("select", { name: "action" }, enums.RewardAction.map((a) => el("option", { value: a, text: a, selected: a === o.action })))),
        field("Partner", el("input", { name: "partnerName", value: o.partnerName, required: true })),
        field("Partner logo URL", el("input", { name: "partnerLogoUrl", value: o.partnerLogoUrl || "" })),
        field("Active", el("input", { name: "active", type: "checkbox", checked: o.active })),
        field("Max per customer", el("input", { name: "maxPerCustomer", type: "number", value: o.maxPerCustomer }))),
      el("div", { class: "field-row" }, field("Before allotment", el("input", { name: "preAllotText", value: o.preAllotText || "" })),
        field("After allotment", el("input", { name: "postAllotText", value: o.postAllotText || "" })),
        field("Min amount (₹)", el("input", { name: "minAmount", value: o.minAmount ? o.minAmount.decimal : "" })),
        field("Max amount (₹)", el("input", { name: "maxAmount", value: o.maxAmount ? o.maxAmount.decimal : "" })),
        field("Valid from", el("input", { name: "validFrom", type: "datetime-local", value: localFromISO(o.validFrom) })),
        field("Valid until", el("input", { name: "validUntil", type: "datetime-local", value: localFromISO(o.validUntil) }))),
      el("div", { class: "field-row" },
        field("Terms (one per line)", el("textarea", { name: "terms", rows: 3 }, o.termsAndConditions.join("\n"))),
        field("Add coupon codes (one per line)", el("textarea", { name: "coupons", rows: 3 }))),
      el("div", { class: "actions" }, el("button", { type: "submit", text: o.id ? "Save offer" : "Create offer" }),
        o.id ? el("button", { type: "button", text: "New offer instead", onclick: () => showRewards(null) }) : null, line));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const lines = (name) => form.elements[name].value.split("\n").map((s) => s.trim()).filter(Boolean);
        const input = {
          name: form.elements.name.value.trim(), action: form.elements.action.value, partnerName: form.elements.partnerName.value.trim(),
          active: form.elements.active.checked, maxPerCustomer: Number(form.elements.maxPerCustomer.value), termsAndConditions: lines("terms"),
        };
        for (const name of ["partnerLogoUrl", "preAllotText", "postAllotText"]) { const v = form.elements[name].value.trim(); if (v) input[name] = v; }
        for (const name of ["minAmount", "maxAmount"]) { const v = form.elements[name].value.trim(); if (v) input[name] = { amount: toMinorUnits(v), currency: "INR" }; }
        for (const name of ["validFrom", "validUntil"]) { const v = isoFromLocal(form.elements[name].value); if (v) input[name] = v; }
        const coupons = lines("coupons");
        if (coupons.length) input.addCouponCodes = coupons;
        if (o.id) input.id = o.id;
        const outcome = await mutate("upsertRewardOffer", `mutation OpsOffer($input: UpsertRewardOfferInput!) {
            upsertRewardOffer(input: $input) { rewardOffer { id name couponsRemaining } userErrors { code message field } } }`, { input },
        (p) => `Saved “${p.rewardOffer.name}” (${p.rewardOffer.couponsRemaining == null ? "?" : p.rewardOffer.couponsRemaining} coupons left).`);
        resultLine(line, outcome);
        if (outcome.ok) setTimeout(() => showRewards(null), 800);
      } catch (error) {
        resultLine(line, { ok: false, text: error.message });
      }
    });
    view(el("h2", { text: "Reward offers" }), problems(result.errors),
      table(["Name", "Action", "Partner", "Active", "Amounts", "Valid", "Per customer", "Coupons left", ""], offers.map((offer) => el("tr", { "data-offer-id": offer.id },
        el("td", { text: offer.name }), el("td", { text: offer.action }), el("td", { text: offer.partnerName }), el("td", { text: offer.active ? "yes" : "no" }),
        el("td", { text: `${offer.minAmount ? offer.minAmount.decimal : "0"} – ${offer.maxAmount ? offer.maxAmount.decimal : "∞"}` }),
        el("td", { text: `${when(offer.validFrom)} – ${when(offer.validUntil)}` }), el("td", { class: "num", text: String(offer.maxPerCustomer) }),
        el("td", { class: "num", text: offer.couponsRemaining == null ? "—" : String(offer.couponsRemaining) }),
        el("td", {}, el("button", { type: "button", text: "Edit", onclick: () => showRewards(offer) })))), "No reward offers."), form);
  }

  // ---------------------------------------------------------------- bill payments

  const bills = { filter: {}, after: null, previous: [], page: 1 };

  async function showBills() {
    const result = await gql(`query OpsBills($filter: BillPaymentFilter, $after: String) {
        billPayments(filter: $filter, first: 25, after: $after) { pageInfo { hasNextPage endCursor }
          nodes { id setuOrderId customerMobileNumber amount { decimal currency } status paymentMode setuTransactionId createdAt flaggedReason flaggedAt
            order { id status }
            confirmation { status paymentStatus attempts lastAttemptAt lastError acknowledgedAt } } } }`,
    { filter: bills.filter, after: bills.after });
    const connection = result.data && result.data.billPayments;
    const form = el("form", { class: "filters" },
      el("div", { class: "check-row" }, checkboxes("status", enums.BillPaymentStatus, bills.filter.status),
        checkboxes("confirmationStatus", enums.BillConfirmationStatus, bills.filter.confirmationStatus)),
      el("div", { class: "field-row" }, field("Setu order id", el("input", { name: "setuOrderId", value: bills.filter.setuOrderId || "" }))),
      el("div", { class: "actions" }, el("button", { type: "submit", text: "Apply filter" })));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const filter = {};
      for (const name of ["status", "confirmationStatus"]) { const values = checkedValues(form, name); if (values.length) filter[name] = values; }
      const setu = form.elements.setuOrderId.value.trim();
      if (setu) filter.setuOrderId = setu;
      Object.assign(bills, { filter, after: null, previous: [], page: 1 });
      showBills();
    });
    const nodes = connection ? connection.nodes : [];
    view(el("h2", { text: "Setu bill payments" }), form, problems(result.errors),
      el("div", { class: "toolbar" }, el("button", { type: "button", text: "Refresh", onclick: showBills }),
        el("div", { class: "pager" },
          el("button", { type: "button", text: "← Newer", disabled: bills.previous.length === 0,
            onclick: () => { bills.after = bills.previous.pop() || null; bills.page--; showBills(); } }),
          el("span", { text: `Page ${bills.page}` }),
          el("button", { type: "button", text: "Older →", disabled: !(connection && connection.pageInfo.hasNextPage),
            onclick: () => { bills.previous.push(bills.after); bills.after = connection.pageInfo.endCursor; bills.page++; showBills(); } }))),
      table(["Created", "Setu order", "Mobile", "Amount", "Status", "Order", "Confirmation to Setu", "Attempts", "Last error", "Acknowledged", "Flagged", ""],
        nodes.map((b) => {
          const c = b.confirmation;
          const line = el("span", { class: "result" });
          return el("tr", { "data-bill-id": b.id }, el("td", { text: when(b.createdAt) }), el("td", { class: "mono", text: b.setuOrderId }),
            el("td", { text: b.customerMobileNumber }), el("td", { text: money(b.amount) }), el("td", {}, badge(b.status, "status")),
            el("td", {}, b.order ? el("a", { href: `#/orders/${encodeURIComponent(b.order.id)}`, text: `${shortID(b.order.id)} ${b.order.status}` }) : "—"),
            el("td", {}, c ? badge(c.status, "confirmation") : "not sent", c ? ` ${c.paymentStatus}` : ""),
            el("td", { class: "num", text: c ? String(c.attempts) : "—" }), el("td", { class: "error-text", text: (c && c.lastError) || "" }),
            el("td", { text: c ? when(c.acknowledgedAt) : "—" }),
            el("td", { class: "error-text", text: b.flaggedReason ? `${b.flaggedReason} (${when(b.flaggedAt)})` : "" }),
            el("td", {}, c && (c.status === "FAILED" || c.status === "REFUSED") ? el("button", { type: "button", text: "Resend", onclick: async () => {
              resultLine(line, await mutate("resendBillPaymentConfirmation", `mutation OpsResend($id: ID!) {
                  resendBillPaymentConfirmation(input: { billPaymentId: $id }) { billPayment { id confirmation { status } } userErrors { code message field } } }`,
              { id: b.id }, (p) => `Resent: ${p.billPayment.confirmation ? p.billPayment.confirmation.status : "queued"}`));
              setTimeout(showBills, 1500);
            } }) : null, line));
        }), "No bill payments."));
  }

  // ---------------------------------------------------------------- sign-in and routing

  function showLogin(message) {
    stopLive();
    store.removeItem(KEY);
    $("login").hidden = false;
    $("app").hidden = true;
    $("nav").hidden = true;
    $("sign-out").hidden = true;
    $("login-error").textContent = message || "";
    $("key").focus();
  }

  async function signIn(key) {
    let answer;
    try {
      answer = await post(key, "query OpsViewer { viewer { apiKeyId scopes environment } }", {}, "application/json");
    } catch (error) {
      return `The server could not be reached (${error.message}).`;
    }
    if (answer.status === 401) {
      return `That key was refused: ${firstMessage(answer.json)}. Use the OPS key (PAYQL_OPS_KEY in .payql/dev-keys, or one made with payql keys create --scope OPS).`;
    }
    const viewer = answer.json && answer.json.data && answer.json.data.viewer;
    if (!viewer) return `The key could not be checked: HTTP ${answer.status}, ${firstMessage(answer.json)}.`;
    if (!viewer.scopes.includes("OPS")) {
      return `This key has the scopes ${viewer.scopes.join(", ")}; the ops page needs a key with the OPS scope.`;
    }
    store.setItem(KEY, key);
    return null;
  }

  async function enterApp() {
    $("login").hidden = true;
    $("app").hidden = false;
    $("nav").hidden = false;
    $("sign-out").hidden = false;
    await loadEnums();
    if (!location.hash || location.hash === "#" || location.hash === "#/") location.hash = "#/orders";
    else route();
  }

  const VIEWS = {
    orders: showOrders, counts: showCounts, reconcile: showReconcile, webhooks: showWebhooks,
    providers: showProviders, routing: () => showRouting(null), rewards: () => showRewards(null), bills: showBills,
  };

  async function route() {
    if (!store.getItem(KEY)) return;
    stopLive();
    const parts = location.hash.replace(/^#\/?/, "").split("/");
    const name = parts[0] || "orders";
    for (const link of document.querySelectorAll("#nav a")) link.classList.toggle("active", link.dataset.view === name);
    document.body.dataset.view = parts.length > 1 && name === "orders" ? "order" : name;
    try {
      if (name === "orders" && parts[1]) await showOrder(decodeURIComponent(parts[1]));
      else await (VIEWS[name] || showOrders)();
    } catch (error) {
      if (!(error instanceof SignedOut)) view(el("p", { class: "error", text: `This view failed: ${error.message}` }));
    }
  }

  function start() {
    $("login-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const key = $("key").value.trim();
      $("login-error").textContent = "Checking…";
      const problem = await signIn(key);
      if (problem) {
        $("login-error").textContent = problem;
        return;
      }
      $("key").value = "";
      $("login-error").textContent = "";
      enterApp();
    });
    $("sign-out").addEventListener("click", () => showLogin("Signed out."));
    window.addEventListener("hashchange", route);
    if (store.getItem(KEY)) enterApp().catch(() => showLogin(""));
    else showLogin("");
  }

  document.addEventListener("DOMContentLoaded", start);
})();
