// The reference for Benchmarks/http: node's `http` module serving graphql-js 16
// (Debian's node-graphql) on the workload schema with the workload's resolution
// rules, and — to be fair to it — a document cache (parse + validate once per
// distinct query text), as PayQL has.
// Usage: node node-graphql-server.js WORKLOAD_DIR PORT
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { parse, validate, execute, buildSchema } = require('/usr/share/nodejs/graphql');

const dir = process.argv[2];
const port = Number(process.argv[3] || 18081);
const load = (name) => fs.readFileSync(path.join(dir, name), 'utf8');
const data = JSON.parse(load('data.json'));

const index = (list) => {
  const map = new Map();
  for (const item of list || []) map.set(item.id, item);
  return map;
};
const orders = index(data.orders);
const customers = index(data.customers);
const payments = index(data.payments);

const schema = buildSchema(load('schema.graphql'));
const fieldsOf = (name) => schema.getType(name).getFields();
fieldsOf('Query').order.resolve = (_, args) => orders.get(args.id) || null;
fieldsOf('Query').node.resolve = (_, args) =>
  orders.get(args.id) || customers.get(args.id) || payments.get(args.id) || null;
fieldsOf('Order').customer.resolve = (order) => customers.get(order.customerId) || null;
fieldsOf('Order').lineItems.resolve = (order, args) => order.lineItems.slice(0, Math.max(0, args.first));
fieldsOf('Order').payments.resolve = (order, args) => {
  const found = [];
  for (const id of order.paymentIds) {
    const payment = payments.get(id);
    if (payment && (args.status == null || payment.status === args.status)) found.push(payment);
  }
  return found.slice(0, Math.max(0, args.first));
};

const documents = new Map();
function prepared(query) {
  let entry = documents.get(query);
  if (entry === undefined) {
    try {
      const document = parse(query);
      entry = { document, errors: validate(schema, document) };
    } catch (error) {
      entry = { document: null, errors: [error] };
    }
    if (documents.size < 1000) documents.set(query, entry);
  }
  return entry;
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/graphql') return send(res, 404, { errors: [{ message: 'not found' }] });
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let params;
    try {
      params = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (error) {
      return send(res, 400, { errors: [{ message: 'invalid JSON' }] });
    }
    if (typeof params.query !== 'string') return send(res, 400, { errors: [{ message: 'missing query' }] });
    const entry = prepared(params.query);
    if (entry.errors.length > 0) return send(res, 200, { errors: entry.errors.map((e) => ({ message: e.message })) });
    const result = execute({
      schema, document: entry.document, variableValues: params.variables || undefined,
      operationName: params.operationName || undefined,
    });
    send(res, 200, result);
  });
}).listen(port, '127.0.0.1', () => console.log(`node graphql-js listening on ${port}`));
