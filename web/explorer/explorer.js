// PayQL's GraphQL explorer: plain JavaScript, no dependencies, nothing fetched
// but the GraphQL endpoint it was served from. Headers (the API key) stay in
// this tab's sessionStorage and are never put in a URL.
"use strict";

(function () {
  const endpoint = document.documentElement.dataset.endpoint || "/graphql";
  const $ = (id) => document.getElementById(id);
  const store = window.sessionStorage;
  const STORE_HEADERS = "payql.explorer.headers";
  const STORE_QUERY = "payql.explorer.query";
  const STORE_VARIABLES = "payql.explorer.variables";

  const INTROSPECTION = `query ExplorerIntrospection {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types {
      kind name description
      fields(includeDeprecated: true) { name description isDeprecated deprecationReason args { name description type { ...T } defaultValue } type { ...T } }
      inputFields { name description type { ...T } defaultValue }
      enumValues(includeDeprecated: true) { name description isDeprecated }
      interfaces { name } possibleTypes { name }
    }
  }
}
fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }`;

  const DEFAULT_QUERY = `# Ctrl+Enter runs the query. The docs on the right come from introspection.
query Viewer {
  viewer { apiKeyId scopes environment }
}
`;

  let schema = null; // { types: Map(name → type), roots: {query, mutation, subscription} }
  let trail = [];

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (name === "onclick") node.addEventListener("click", value);
      else if (name === "text") node.textContent = value;
      else node.setAttribute(name, value);
    }
    for (const child of children) {
      if (child == null) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function setStatus(text, isError) {
    const status = $("status");
    status.textContent = text;
    status.className = isError ? "error" : "";
  }

  function readJSON(id, what) {
    const text = $(id).value.trim();
    if (text === "") return {};
    try {
      const value = JSON.parse(text);
      if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("not an object");
      return value;
    } catch (error) {
      throw new Error(`${what} must be a JSON object (${error.message})`);
    }
  }

  async function post(body) {
    const headers = { "content-type": "application/json", accept: "application/graphql-response+json, application/json;q=0.9" };
    for (const [name, value] of Object.entries(readJSON("headers", "Headers"))) headers[name] = String(value);
    const response = await fetch(endpoint, { method: "POST", headers, body: JSON.stringify(body), credentials: "omit" });
    const text = await response.text();
    let json = null;
    try { json = JSON.parse(text); } catch (_) { /* shown as text */ }
    return { status: response.status, json, text };
  }

  async function run() {
    store.setItem(STORE_QUERY, $("query").value);
    store.setItem(STORE_VARIABLES, $("variables").value);
    store.setItem(STORE_HEADERS, $("headers").value);
    let body;
    try {
      body = { query: $("query").value, variables: readJSON("variables", "Variables") };
    } catch (error) {
      setStatus(error.message, true);
      return;
    }
    const operationName = $("operation-name").value.trim();
    if (operationName) body.operationName = operationName;
    setStatus("Running…");
    const started = performance.now();
    try {
      const answer = await post(body);
      const ms = Math.round(performance.now() - started);
      setStatus(`HTTP ${answer.status} in ${ms} ms`, answer.status >= 400);
      $("result").textContent = answer.json ? JSON.stringify(answer.json, null, 2) : answer.text;
    } catch (error) {
      setStatus(`The request failed: ${error.message}`, true);
    }
  }

  // --- Prettify: re-indents by braces and parentheses; strings and comments kept as written.
  function prettify() {
    const source = $("query").value;
    let out = "";
    let depth = 0;
    let i = 0;
    let lineStart = true;
    const indent = () => "  ".repeat(Math.max(depth, 0));
    while (i < source.length) {
      const c = source[i];
      if (c === "#") {
        const end = source.indexOf("\n", i);
        const comment = source.slice(i, end === -1 ? source.length : end);
        out += (lineStart ? indent() : " ") + comment + "\n";
        lineStart = true;
        i = end === -1 ? source.length : end + 1;
        continue;
      }
      if (c === '"') {
        const block = source.startsWith('"""', i);
        const close = block ? source.indexOf('"""', i + 3) : (() => { let j = i + 1; while (j < source.length && source[j] !== '"') j += source[j] === "\\" ? 2 : 1; return j; })();
        const end = close === -1 ? source.length : close + (block ? 3 : 1);
        out += (lineStart ? indent() : "") + source.slice(i, end);
        lineStart = false;
        i = end;
        continue;
      }
      if (c === "{") { out = out.replace(/ *$/, "") + (lineStart ? indent() : " ") + "{\n"; depth++; lineStart = true; i++; continue; }
      if (c === "}") { depth--; if (!lineStart) out += "\n"; out += indent() + "}\n"; lineStart = true; i++; continue; }
      if (/\s/.test(c)) {
        if (!lineStart && !/\s$/.test(out)) out += " ";
        i++;
        continue;
      }
      if (c === ",") { i++; if (!lineStart) { out += "\n"; lineStart = true; } continue; }
      if (lineStart) out += indent();
      // A field or argument list: copy to the end of the token group.
      let j = i;
      let parens = 0;
      while (j < source.length) {
        const d = source[j];
        if (d === "(") parens++;
        if (d === ")") parens--;
        if (parens === 0 && (d === "{" || d === "}" || d === "\n" || d === "#")) break;
        if (d === '"') { j++; while (j < source.length && source[j] !== '"') j += source[j] === "\\" ? 2 : 1; }
        j++;
      }
      const token = source.slice(i, j).trim();
      out += token;
      i = j;
      if (source[j] === "\n" || source[j] === "}" || j >= source.length) { out += "\n"; lineStart = true; } else { lineStart = false; }
    }
    $("query").value = out.replace(/\n{2,}/g, "\n").trim() + "\n";
  }

  // --- Docs from introspection.
  async function loadSchema() {
    const body = $("docs-body");
    body.replaceChildren(el("p", { class: "muted", text: "Loading the schema by introspection…" }));
    let answer;
    try {
      answer = await post({ query: INTROSPECTION, operationName: "ExplorerIntrospection" });
    } catch (error) {
      body.replaceChildren(el("p", { class: "muted", text: `Introspection failed: ${error.message}` }));
      return;
    }
    const data = answer.json && answer.json.data && answer.json.data.__schema;
    if (!data) {
      const errors = (answer.json && answer.json.errors) || [];
      const first = errors[0] || {};
      const code = first.extensions && first.extensions.code;
      const hint = answer.status === 401 ? " Put your key in the headers: {\"Authorization\": \"Bearer <key>\"}, then Reload schema." : "";
      body.replaceChildren(el("p", { class: "muted", text: `No schema (HTTP ${answer.status}${code ? ", " + code : ""}): ${first.message || answer.text}.${hint}` }));
      return;
    }
    const types = new Map();
    for (const type of data.types) types.set(type.name, type);
    schema = {
      types,
      roots: {
        query: data.queryType && data.queryType.name,
        mutation: data.mutationType && data.mutationType.name,
        subscription: data.subscriptionType && data.subscriptionType.name,
      },
    };
    trail = [];
    showRoots();
  }

  function typeRef(ref) {
    if (!ref) return document.createTextNode("?");
    if (ref.kind === "NON_NULL") { const span = el("span", {}, typeRef(ref.ofType), "!"); return span; }
    if (ref.kind === "LIST") return el("span", {}, "[", typeRef(ref.ofType), "]");
    return el("a", { onclick: () => showType(ref.name, true) }, ref.name);
  }

  function showTrail() {
    const nav = $("docs-trail");
    const links = [el("a", { onclick: () => { trail = []; showRoots(); } }, "Schema")];
    trail.forEach((name, index) => {
      links.push(" › ");
      links.push(el("a", { onclick: () => { trail = trail.slice(0, index); showType(name, true); } }, name));
    });
    nav.replaceChildren(...links);
  }

  function showRoots() {
    showTrail();
    const body = $("docs-body");
    const items = [el("h2", { text: "Root types" })];
    for (const [label, name] of Object.entries(schema.roots)) {
      if (!name) continue;
      items.push(el("div", { class: "field" }, `${label}: `, el("a", { onclick: () => showType(name, true) }, name)));
    }
    items.push(el("h3", { text: "All types" }));
    const names = [...schema.types.keys()].filter((n) => !n.startsWith("__")).sort();
    for (const name of names) items.push(el("div", { class: "field" }, el("a", { onclick: () => showType(name, true) }, name)));
    body.replaceChildren(...items);
  }

  function describe(text) {
    return text ? el("div", { class: "desc", text }) : null;
  }

  function showType(name, push) {
    if (!schema) return;
    const type = schema.types.get(name);
    if (!type) return;
    if (push && trail[trail.length - 1] !== name) trail.push(name);
    showTrail();
    const items = [el("h2", { text: `${type.kind.toLowerCase().replace("_", " ")} ${type.name}` }), describe(type.description)];
    if (type.interfaces && type.interfaces.length) {
      items.push(el("div", { class: "field" }, "implements ", ...type.interfaces.flatMap((i, n) => [n ? ", " : "", typeRef(i)])));
    }
    if (type.fields) {
      items.push(el("h3", { text: "Fields" }));
      for (const field of type.fields) {
        const args = field.args.length
          ? ["(", ...field.args.flatMap((arg, n) => [n ? ", " : "", `${arg.name}: `, typeRef(arg.type), arg.defaultValue != null ? ` = ${arg.defaultValue}` : ""]), ")"]
          : [];
        items.push(el("div", { class: "field" + (field.isDeprecated ? " deprecated" : "") }, field.name, ...args, ": ", typeRef(field.type)));
        items.push(describe(field.description));
      }
    }
    if (type.inputFields) {
      items.push(el("h3", { text: "Input fields" }));
      for (const field of type.inputFields) {
        items.push(el("div", { class: "field" }, `${field.name}: `, typeRef(field.type), field.defaultValue != null ? ` = ${field.defaultValue}` : ""));
        items.push(describe(field.description));
      }
    }
    if (type.enumValues) {
      items.push(el("h3", { text: "Values" }));
      for (const value of type.enumValues) {
        items.push(el("div", { class: "field" + (value.isDeprecated ? " deprecated" : "") }, value.name));
        items.push(describe(value.description));
      }
    }
    if (type.possibleTypes && type.possibleTypes.length) {
      items.push(el("h3", { text: "Possible types" }));
      for (const possible of type.possibleTypes) items.push(el("div", { class: "field" }, typeRef(possible)));
    }
    $("docs-body").replaceChildren(...items.filter(Boolean));
  }

  function search(text) {
    if (!schema) return;
    const needle = text.trim().toLowerCase();
    if (!needle) { trail = []; showRoots(); return; }
    const hits = [];
    for (const type of schema.types.values()) {
      if (type.name.startsWith("__")) continue;
      if (type.name.toLowerCase().includes(needle)) hits.push(el("div", { class: "field" }, el("a", { onclick: () => showType(type.name, true) }, type.name)));
      for (const field of type.fields || type.inputFields || []) {
        if (field.name.toLowerCase().includes(needle)) {
          hits.push(el("div", { class: "field" }, el("a", { onclick: () => showType(type.name, true) }, type.name), `.${field.name}`));
        }
      }
      if (hits.length > 200) break;
    }
    $("docs-body").replaceChildren(el("h2", { text: `Matches for “${text.trim()}”` }), ...(hits.length ? hits : [el("p", { class: "muted", text: "None." })]));
  }

  function start() {
    $("endpoint").textContent = `POST ${location.origin}${endpoint}`;
    const params = new URLSearchParams(location.search);
    $("query").value = params.get("query") || store.getItem(STORE_QUERY) || DEFAULT_QUERY;
    $("variables").value = params.get("variables") || store.getItem(STORE_VARIABLES) || "{}";
    $("operation-name").value = params.get("operationName") || "";
    const headers = store.getItem(STORE_HEADERS);
    if (headers) $("headers").value = headers;
    $("run").addEventListener("click", run);
    $("prettify").addEventListener("click", prettify);
    $("reload-schema").addEventListener("click", () => { store.setItem(STORE_HEADERS, $("headers").value); loadSchema(); });
    $("docs-search").addEventListener("input", (event) => search(event.target.value));
    $("headers").addEventListener("change", () => store.setItem(STORE_HEADERS, $("headers").value));
    document.addEventListener("keydown", (event) => {
      if ((event.ctrlKey || event.metaKey) && event.key === "Enter") { event.preventDefault(); run(); }
    });
    $("query").addEventListener("keydown", (event) => {
      if (event.key !== "Tab") return;
      event.preventDefault();
      const area = event.target;
      const at = area.selectionStart;
      area.setRangeText("  ", at, area.selectionEnd, "end");
    });
    loadSchema();
  }

  document.addEventListener("DOMContentLoaded", start);
})();
