-- PayQL core tables: the unified model of docs/DESIGN.md, first cut.
-- Money: bigint minor units + ISO-4217 char(3) code, never floating point.
-- Statuses: text with CHECK constraints (a new status is a new migration).
-- Later issues refine this with new migrations; never edit an applied one.

CREATE TABLE customers (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text,
    email       text,
    contact     text,                       -- phone number, E.164 where known
    gstin       text CHECK (gstin IS NULL OR gstin ~ '^[0-9]{2}[A-Z0-9]{13}$'),
    notes       jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX customers_email_idx ON customers (lower(email));
CREATE INDEX customers_contact_idx ON customers (contact);

-- The same customer as known by each provider.
CREATE TABLE customer_provider_refs (
    customer_id          uuid NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    provider             text NOT NULL CHECK (provider IN ('razorpay', 'cashfree', 'instamojo', 'setu')),
    provider_customer_id text NOT NULL,
    created_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (customer_id, provider),
    UNIQUE (provider, provider_customer_id)
);

-- TPV (third-party validation) bank accounts a customer may pay from.
CREATE TABLE bank_accounts (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    customer_id         uuid NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    account_number      text NOT NULL CHECK (account_number ~ '^[0-9A-Za-z]{6,20}$'),
    ifsc                char(11) NOT NULL CHECK (ifsc ~ '^[A-Z]{4}0[A-Z0-9]{6}$'),
    account_holder_name text,
    status              text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISABLED')),
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (customer_id, account_number, ifsc)
);

-- UPI handles and bank accounts linked at a provider; only masked forms are kept.
CREATE TABLE linked_accounts (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    customer_id        uuid NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    kind               text NOT NULL CHECK (kind IN ('UPI', 'BANK_ACCOUNT')),
    provider           text NOT NULL CHECK (provider IN ('razorpay', 'cashfree', 'instamojo', 'setu')),
    provider_reference text NOT NULL,
    masked_identifier  text NOT NULL,       -- e.g. 'ab***@okaxis', 'XXXXXX1234'
    bank_name          text,
    bank_account_id    uuid REFERENCES bank_accounts (id) ON DELETE SET NULL,
    status             text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'INACTIVE', 'REVOKED')),
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (provider, provider_reference)
);
CREATE INDEX linked_accounts_customer_idx ON linked_accounts (customer_id);

CREATE TABLE orders (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    customer_id       uuid REFERENCES customers (id),
    provider          text NOT NULL CHECK (provider IN ('razorpay', 'cashfree', 'instamojo', 'setu')),
    provider_order_id text,                 -- NULL until the provider acknowledged the order
    amount_minor      bigint NOT NULL CHECK (amount_minor > 0),
    currency          char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    receipt           text,
    method            text,
    bank_account_id   uuid REFERENCES bank_accounts (id),
    status            text NOT NULL DEFAULT 'CREATED'
                      CHECK (status IN ('CREATED', 'ATTEMPTED', 'PENDING', 'PAID', 'FAILED', 'EXPIRED', 'CANCELLED')),
    provider_status   text,                 -- the provider's own word, verbatim
    client_payload    jsonb NOT NULL DEFAULT '{}'::jsonb,   -- what the client SDK needs
    notes             jsonb NOT NULL DEFAULT '{}'::jsonb,
    expires_at        timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (provider, provider_order_id)
);
CREATE UNIQUE INDEX orders_receipt_idx ON orders (receipt) WHERE receipt IS NOT NULL;
CREATE INDEX orders_customer_idx ON orders (customer_id, created_at DESC);
CREATE INDEX orders_status_idx ON orders (status, created_at DESC);

CREATE TABLE payments (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    order_id            uuid NOT NULL REFERENCES orders (id),
    provider            text NOT NULL CHECK (provider IN ('razorpay', 'cashfree', 'instamojo', 'setu')),
    provider_payment_id text NOT NULL,
    status              text NOT NULL
                        CHECK (status IN ('CREATED', 'PENDING', 'AUTHORIZED', 'CAPTURED', 'FAILED', 'REFUNDED', 'PARTIALLY_REFUNDED')),
    provider_status     text,
    method              text,
    amount_minor        bigint NOT NULL CHECK (amount_minor > 0),
    currency            char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    verified            boolean NOT NULL DEFAULT false,   -- signature or server-side status check passed
    error_code          text,
    error_description   text,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (provider, provider_payment_id)
);
CREATE INDEX payments_order_idx ON payments (order_id);

CREATE TABLE refunds (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    payment_id         uuid NOT NULL REFERENCES payments (id),
    provider           text NOT NULL CHECK (provider IN ('razorpay', 'cashfree', 'instamojo', 'setu')),
    provider_refund_id text,                -- NULL until the provider acknowledged it
    amount_minor       bigint NOT NULL CHECK (amount_minor > 0),
    currency           char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    status             text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'PROCESSED', 'FAILED')),
    reason             text,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (provider, provider_refund_id)
);
CREATE INDEX refunds_payment_idx ON refunds (payment_id);

-- One row per (caller, idempotency key): the second call returns the first call's result;
-- the primary key makes concurrent duplicates execute once, across instances.
CREATE TABLE idempotency_records (
    scope           text NOT NULL,          -- the caller (API key id / principal)
    key             text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    operation       text NOT NULL,          -- the mutation's name
    request_hash    text NOT NULL,          -- a reused key with another request is an error
    status          text NOT NULL DEFAULT 'IN_PROGRESS' CHECK (status IN ('IN_PROGRESS', 'COMPLETED')),
    response        jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    completed_at    timestamptz,
    expires_at      timestamptz NOT NULL DEFAULT now() + interval '24 hours',
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_records_expiry_idx ON idempotency_records (expires_at);

-- Provider webhooks, deduplicated on (provider, event id).
CREATE TABLE webhook_events (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    provider         text NOT NULL CHECK (provider IN ('razorpay', 'cashfree', 'instamojo', 'setu')),
    event_id         text NOT NULL,
    event_type       text NOT NULL,
    order_id         uuid REFERENCES orders (id),
    payload          jsonb NOT NULL,
    received_at      timestamptz NOT NULL DEFAULT now(),
    processed_at     timestamptz,
    processing_error text,
    UNIQUE (provider, event_id)
);
CREATE INDEX webhook_events_order_idx ON webhook_events (order_id);

CREATE TABLE rewards (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    customer_id    uuid REFERENCES customers (id),
    mobile         text NOT NULL,
    action         text NOT NULL CHECK (action IN ('ONBOARDING', 'PAYMENT')),
    amount_minor   bigint NOT NULL CHECK (amount_minor >= 0),
    currency       char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    partner        text,
    coupon         text,
    terms          text,
    status         text NOT NULL DEFAULT 'ELIGIBLE' CHECK (status IN ('ELIGIBLE', 'INELIGIBLE', 'ALLOTTED', 'EXPIRED')),
    order_id       uuid REFERENCES orders (id),
    allotted_at    timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (order_id, action)
);
CREATE INDEX rewards_mobile_idx ON rewards (mobile);
