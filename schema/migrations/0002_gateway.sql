-- The Gateway's tables and the fixes the contract needs (docs/api.md, shared api README "Storage"):
-- API keys and client sessions, encrypted TPV accounts, the order fields of the contract,
-- the order timeline, webhook de-duplication by body hash, refunds as the contract names them.
-- Nothing wrote to the tables of 0001 before this migration; still, every change is an ALTER.

-- API keys: only a SHA-256 of the key is stored (keys are 32 random bytes, so a fast hash is enough).
CREATE TABLE api_keys (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text NOT NULL DEFAULT '' CHECK (length(name) <= 200),
    scopes      text[] NOT NULL CHECK (cardinality(scopes) >= 1 AND scopes <@ ARRAY['PUBLISHABLE', 'SECRET', 'OPS']),
    prefix      text NOT NULL,                 -- the key's first characters, shown by `payql keys list`
    key_hash    bytea NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

-- App sessions minted by a SECRET key for one customer (decision 3): bearer tokens, hash only.
CREATE TABLE client_sessions (
    id                      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    api_key_id              uuid NOT NULL REFERENCES api_keys (id),
    customer_id             uuid NOT NULL REFERENCES customers (id),
    token_hash              bytea NOT NULL UNIQUE,
    max_order_amount_minor  bigint NOT NULL CHECK (max_order_amount_minor > 0),
    currency                char(3) NOT NULL DEFAULT 'INR',
    expires_at              timestamptz NOT NULL,
    revoked_at              timestamptz,
    created_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX client_sessions_customer_idx ON client_sessions (customer_id);

-- Customers: Razorpay's fail_existing semantics need "the same customer" decided by the database.
CREATE UNIQUE INDEX customers_identity_idx ON customers (coalesce(contact, ''), coalesce(lower(email), ''))
    WHERE contact IS NOT NULL OR email IS NOT NULL;
CREATE INDEX customers_created_idx ON customers (created_at DESC, id DESC);

-- TPV accounts: the full number only as AES-256-GCM ciphertext (with the id of its key), found again
-- through an HMAC blind index, shown as a mask.
ALTER TABLE bank_accounts DROP COLUMN account_number;         -- also drops its CHECK and the UNIQUE over it
ALTER TABLE bank_accounts DROP CONSTRAINT bank_accounts_status_check;
UPDATE bank_accounts SET status = 'REMOVED' WHERE status = 'DISABLED';
ALTER TABLE bank_accounts
    ADD COLUMN account_ciphertext bytea NOT NULL,
    ADD COLUMN account_key_id     text NOT NULL,
    ADD COLUMN account_blind_index bytea NOT NULL,
    ADD COLUMN last4              text NOT NULL CHECK (last4 ~ '^[0-9A-Za-z]{1,4}$'),
    ADD COLUMN bank_name          text,
    ADD COLUMN beneficiary_email  text,
    ADD COLUMN beneficiary_mobile text,
    ADD COLUMN removed_at         timestamptz,
    ADD CONSTRAINT bank_accounts_status_check CHECK (status IN ('ACTIVE', 'REMOVED'));
CREATE UNIQUE INDEX bank_accounts_active_idx ON bank_accounts (customer_id, account_blind_index, ifsc) WHERE status = 'ACTIVE';

CREATE TABLE bank_account_provider_refs (
    bank_account_id          uuid NOT NULL REFERENCES bank_accounts (id) ON DELETE CASCADE,
    provider                 text NOT NULL CHECK (provider IN ('razorpay', 'cashfree', 'instamojo', 'setu')),
    provider_bank_account_id text NOT NULL,
    PRIMARY KEY (bank_account_id, provider)
);

-- Orders: the contract's fields. `receipt` is the one merchant reference sent to every provider.
ALTER TABLE orders
    ALTER COLUMN receipt SET NOT NULL,
    ADD CONSTRAINT orders_receipt_check CHECK (receipt ~ '^[A-Za-z0-9_-]{3,40}$'),
    ADD COLUMN flow                  text NOT NULL DEFAULT 'STANDARD',
    ADD COLUMN description           text,
    ADD COLUMN return_url            text,
    ADD COLUMN needs_reconciliation  boolean NOT NULL DEFAULT false,
    ADD COLUMN amount_paid_minor     bigint NOT NULL DEFAULT 0 CHECK (amount_paid_minor >= 0),
    ADD COLUMN amount_refunded_minor bigint NOT NULL DEFAULT 0 CHECK (amount_refunded_minor >= 0),
    ADD COLUMN created_by            text NOT NULL DEFAULT 'SECRET_KEY' CHECK (created_by IN ('SECRET_KEY', 'CLIENT_SESSION')),
    ADD COLUMN api_key_id            uuid REFERENCES api_keys (id),
    ADD COLUMN client_session_id     uuid REFERENCES client_sessions (id),
    ADD COLUMN attempts              integer,
    ADD COLUMN paid_at               timestamptz,
    ADD COLUMN last_synced_at        timestamptz,
    ADD COLUMN reconcile_after       timestamptz,
    ADD COLUMN reconcile_attempts    integer NOT NULL DEFAULT 0;
DROP INDEX orders_receipt_idx;
CREATE UNIQUE INDEX orders_receipt_key ON orders (receipt);
CREATE INDEX orders_created_idx ON orders (created_at DESC, id DESC);
CREATE INDEX orders_reconcile_idx ON orders (reconcile_after) WHERE needs_reconciliation OR status IN ('CREATED', 'ATTEMPTED', 'PENDING');

-- Payments: CANCELLED exists in the contract; how a payment was verified, and when.
ALTER TABLE payments DROP CONSTRAINT payments_status_check;
ALTER TABLE payments
    ADD CONSTRAINT payments_status_check
        CHECK (status IN ('CREATED', 'PENDING', 'AUTHORIZED', 'CAPTURED', 'FAILED', 'CANCELLED', 'REFUNDED', 'PARTIALLY_REFUNDED')),
    ADD COLUMN amount_refunded_minor bigint NOT NULL DEFAULT 0 CHECK (amount_refunded_minor >= 0),
    ADD COLUMN verification_method   text CHECK (verification_method IN ('CHECKOUT_SIGNATURE', 'PROVIDER_STATUS_CHECK', 'SIGNED_WEBHOOK')),
    ADD COLUMN verified_at           timestamptz,
    ADD COLUMN captured_at           timestamptz,
    ADD COLUMN bank_reference        text,
    ADD COLUMN failure_reason        text,
    ADD COLUMN failure_source        text,
    ADD COLUMN failure_step          text,
    ADD COLUMN client_reported_reward_status boolean;

-- Refunds: the contract's statuses (SUCCEEDED, not PROCESSED) and fields.
ALTER TABLE refunds DROP CONSTRAINT refunds_status_check;
ALTER TABLE refunds
    ADD CONSTRAINT refunds_status_check CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
    ADD COLUMN order_id          uuid REFERENCES orders (id),
    ADD COLUMN reference         text NOT NULL,
    ADD COLUMN provider_status   text,
    ADD COLUMN speed_requested   text CHECK (speed_requested IN ('NORMAL', 'INSTANT')),
    ADD COLUMN speed_processed   text CHECK (speed_processed IN ('NORMAL', 'INSTANT')),
    ADD COLUMN note              text,
    ADD COLUMN bank_reference    text,
    ADD COLUMN initiated_by      text NOT NULL DEFAULT 'MERCHANT' CHECK (initiated_by IN ('MERCHANT', 'SETU', 'PROVIDER_AUTOMATIC')),
    ADD COLUMN failure_reason    text,
    ADD COLUMN needs_reconciliation boolean NOT NULL DEFAULT false,
    ADD COLUMN processed_at      timestamptz;
CREATE UNIQUE INDEX refunds_reference_key ON refunds (reference);

-- The order timeline: one row per thing that happened, in order.
CREATE TABLE order_events (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_id         uuid NOT NULL REFERENCES orders (id),
    at               timestamptz NOT NULL DEFAULT clock_timestamp(),
    kind             text NOT NULL,
    status           text NOT NULL,
    previous_status  text,
    provider_status  text,
    source           text NOT NULL CHECK (source IN ('API', 'PROVIDER_RESPONSE', 'WEBHOOK', 'RECONCILER', 'CLIENT', 'OPS')),
    payment_id       uuid REFERENCES payments (id),
    refund_id        uuid REFERENCES refunds (id),
    webhook_event_id uuid REFERENCES webhook_events (id),
    message          text
);
CREATE INDEX order_events_order_idx ON order_events (order_id, id);

-- Webhooks: a delivery is a duplicate when its event id or the hash of its signed body was seen.
ALTER TABLE webhook_events
    ADD COLUMN body_hash   bytea,
    ADD COLUMN outcome     text NOT NULL DEFAULT 'APPLIED',
    ADD COLUMN deliveries  integer NOT NULL DEFAULT 1,
    ADD COLUMN payment_id  uuid REFERENCES payments (id),
    ADD COLUMN refund_id   uuid REFERENCES refunds (id);
CREATE UNIQUE INDEX webhook_events_body_hash_key ON webhook_events (provider, body_hash);
CREATE INDEX webhook_events_received_idx ON webhook_events (received_at DESC, id DESC);

-- Rejected deliveries (bad signature): a bounded log, never in the de-duplication table.
CREATE TABLE webhook_rejections (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider     text NOT NULL,
    reason       text NOT NULL,
    body_hash    bytea NOT NULL,
    body_bytes   integer NOT NULL,
    received_at  timestamptz NOT NULL DEFAULT now()
);

-- Idempotency: the stored result names objects (ids), not a response snapshot.
ALTER TABLE idempotency_records
    ADD COLUMN result_ids jsonb;
