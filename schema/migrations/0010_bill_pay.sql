-- Setu bill pay (issue 11, flows F19–F24; decisions 7 and 8): single-use links into
-- Setu's screens, the bill payments started from `initiate_payment`, and the
-- payment-event PayQL owes Setu for each (delivered through the outbox).

CREATE TABLE bill_pay_links (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    customer_id        uuid REFERENCES customers (id),
    mobile_number      text NOT NULL CHECK (mobile_number ~ '^[0-9]{6,22}$'),
    scenario           text NOT NULL CHECK (scenario IN ('HOME', 'CATEGORY', 'BILL_FETCH_FORM', 'BILL')),
    category           text,
    biller_id          text,
    bill_parameters    jsonb NOT NULL DEFAULT '[]',
    additional_info    jsonb NOT NULL DEFAULT '[]',
    redirect_to        text CHECK (redirect_to IN ('TRANSACTIONS', 'DISPUTES')),
    link               text NOT NULL,
    short_link         text,
    session_id         text,
    trace_id           text,
    api_key_id         uuid,
    client_session_id  uuid,
    expires_at         timestamptz NOT NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    CHECK (biller_id IS NULL OR category IS NOT NULL),
    CHECK (bill_parameters = '[]' OR biller_id IS NOT NULL)
);
CREATE UNIQUE INDEX bill_pay_links_session_key ON bill_pay_links (session_id) WHERE session_id IS NOT NULL;
CREATE INDEX bill_pay_links_customer_idx ON bill_pay_links (customer_id, created_at DESC);

CREATE TABLE bill_payments (
    id                      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    -- Idempotent on Setu's order id: a repeated initiate_payment finds this row.
    setu_order_id           text NOT NULL UNIQUE CHECK (length(setu_order_id) BETWEEN 1 AND 100),
    bill_pay_link_id        uuid REFERENCES bill_pay_links (id),
    customer_id             uuid REFERENCES customers (id),
    customer_mobile_number  text NOT NULL,
    setu_customer_id        text,
    amount_minor            bigint NOT NULL CHECK (amount_minor > 0),
    currency                char(3) NOT NULL DEFAULT 'INR' CHECK (currency = 'INR'),
    allowed_modes           text[] NOT NULL DEFAULT '{}',
    allowed_modes_raw       text,
    unrecognised_modes      text[] NOT NULL DEFAULT '{}',
    post_payment_url        text NOT NULL,
    deprecated_fields       text[] NOT NULL DEFAULT '{}',
    -- The initiate_payment data as received (beneficiaryVPA, remarks, refId kept for audit only).
    initiate_payment        jsonb NOT NULL,
    status                  text NOT NULL DEFAULT 'INITIATED'
                            CHECK (status IN ('INITIATED', 'AWAITING_PAYMENT', 'PAYMENT_FAILED', 'PAID', 'CONFIRMED', 'BILL_PAID',
                                              'BILL_PAYMENT_FAILED', 'COLLECTION_FAILED', 'REFUNDED')),
    order_id                uuid UNIQUE REFERENCES orders (id),
    payment_mode            text,
    biller_id               text,
    biller_name             text,
    biller_category         text,
    bills                   jsonb NOT NULL DEFAULT '[]',
    setu_transaction_id     text,
    -- Set when ops must look (a refused confirmation, an amount mismatch, a disallowed mode).
    flagged_reason          text,
    flagged_at              timestamptz,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bill_payments_created_idx ON bill_payments (created_at DESC, id DESC);
CREATE INDEX bill_payments_link_idx ON bill_payments (bill_pay_link_id);
CREATE INDEX bill_payments_customer_idx ON bill_payments (customer_id, created_at DESC);

-- The payment-event owed to Setu for a bill payment (one per bill payment; replaced when
-- the outcome changes, e.g. a late payment after FAILURE). Delivery is the outbox's job;
-- this row is what is sent and what `getPaymentStatus` answers.
CREATE TABLE bill_payment_confirmations (
    bill_payment_id   uuid PRIMARY KEY REFERENCES bill_payments (id),
    status            text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SENDING', 'ACKNOWLEDGED', 'FAILED', 'REFUSED')),
    outcome           text NOT NULL CHECK (outcome IN ('SUCCESS', 'FAILURE')),
    transaction_id    text NOT NULL,
    payment_id        uuid REFERENCES payments (id),
    payment_mode      text NOT NULL,
    paid_at           timestamptz NOT NULL,
    amount_minor      bigint NOT NULL CHECK (amount_minor > 0),
    failure_code      text,
    failure_message   text,
    bank_reference    text,
    -- Bumped on every (re)enqueue: a delivery of an older generation is not applied.
    generation        integer NOT NULL DEFAULT 1,
    attempts          integer NOT NULL DEFAULT 0,
    last_attempt_at   timestamptz,
    last_error        text,
    acknowledged_at   timestamptz,
    give_up_at        timestamptz NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bill_payment_confirmations_status_idx ON bill_payment_confirmations (status);
