// The reference for Benchmarks/gateway: node's `http` module serving graphql-js 16
// (Debian's node-graphql) and Debian's node-pg on the same PostgreSQL tables PayQL
// uses, answering the same `order(id)` query with its customer and payments.
// To be fair to it, it does what PayQL does per request: a bearer key checked
// against `api_keys` (SHA-256, cached 5 s), a document cache (parse + validate once
// per query text), and one query per related field for the whole request.
// Usage: node node-order-server.js PORT PGHOST PGPORT PGDATABASE PGUSER
'use strict';
const http = require('http');
const crypto = require('crypto');
const { Pool } = require('pg');   // Debian's node-pg (run.sh sets NODE_PATH)
const { parse, validate, execute, buildSchema } = require('graphql');   // Debian's node-graphql

const [port, host, pgPort, database, user] = process.argv.slice(2);
const pool = new Pool({ host, port: Number(pgPort), database, user, max: 10 });

const schema = buildSchema(`
  type Query { order(id: ID!): Order }
  type Money { amount: String! currency: String! decimal: String! }
  type Customer { id: ID! name: String email: String phone: String }
  type Payment { id: ID! providerPaymentId: String! status: String! amount: Money! verified: Boolean! }
  type Order { id: ID! receipt: String! status: String! provider: String! amount: Money! amountPaid: Money!
               customer: Customer payments: [Payment!]! createdAt: String! }
`);

const globalID = (type, uuid) => Buffer.from(`${type}:${uuid}`).toString('base64url');
const uuidOf = (id, type) => {
  const text = Buffer.from(id, 'base64url').toString();
  return text.startsWith(type + ':') ? text.slice(type.length + 1) : null;
};
const money = (minor, currency) => ({ amount: String(minor), currency, decimal: (BigInt(minor) / 100n) + '.' + String(BigInt(minor) % 100n).padStart(2, '0') });

const root = {
  async order({ id }) {
    const uuid = uuidOf(id, 'Order');
    if (!uuid) return null;
    const { rows } = await pool.query({ name: 'order', text: 'SELECT id, receipt, status, provider, amount_minor, currency, amount_paid_minor, customer_id, created_at FROM orders WHERE id = $1', values: [uuid] });
    const row = rows[0];
    if (!row) return null;
    return {
      id: globalID('Order', row.id), receipt: row.receipt, status: row.status, provider: row.provider.toUpperCase(),
      amount: money(row.amount_minor, row.currency), amountPaid: money(row.amount_paid_minor, row.currency),
      createdAt: row.created_at.toISOString(),
      customer: async () => {
        if (!row.customer_id) return null;
        const c = (await pool.query({ name: 'customer', text: 'SELECT id, name, email, contact FROM customers WHERE id = $1', values: [row.customer_id] })).rows[0];
        return c ? { id: globalID('Customer', c.id), name: c.name, email: c.email, phone: c.contact } : null;
      },
      payments: async () => (await pool.query({ name: 'payments', text: 'SELECT id, provider_payment_id, status, amount_minor, currency, verified FROM payments WHERE order_id = $1 ORDER BY created_at, id', values: [row.id] })).rows
        .map((p) => ({ id: globalID('Payment', p.id), providerPaymentId: p.provider_payment_id, status: p.status, amount: money(p.amount_minor, p.currency), verified: p.verified })),
    };
  },
};

const keys = new Map();
async function authenticated(header) {
  if (!header || !header.startsWith('Bearer ')) return false;
  const hash = crypto.createHash('sha256').update(header.slice(7)).digest();
  const cached = keys.get(hash.toString('hex'));
  if (cached && cached > Date.now()) return true;
  const { rows } = await pool.query({ name: 'key', text: 'SELECT id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', values: [hash] });
  if (rows.length === 0) return false;
  keys.set(hash.toString('hex'), Date.now() + 5000);
  return true;
}

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
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    try {
      if (!(await authenticated(req.headers.authorization))) return send(res, 401, { errors: [{ message: 'unauthenticated' }] });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const { document, errors } = prepared(body.query);
      if (errors.length > 0) return send(res, 400, { errors: errors.map((e) => ({ message: e.message })) });
      const result = await execute({ schema, document, rootValue: root, variableValues: body.variables });
      send(res, 200, result);
    } catch (error) {
      send(res, 500, { errors: [{ message: String(error) }] });
    }
  });
}).listen(Number(port), '127.0.0.1');
