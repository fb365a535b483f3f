-- The outbox (docs/DESIGN.md, "The outbox"): work to do after a commit — notify the merchant,
-- confirm a bill payment to Setu — written in the same transaction as the change it follows and
-- done by workers that claim due rows with FOR UPDATE SKIP LOCKED. Messages of one kind about one
-- object are delivered in id order: a row waits while an earlier PENDING row of its (kind, object) exists.
CREATE TABLE outbox (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,   -- enqueue order
    uuid             uuid NOT NULL DEFAULT gen_random_uuid(),           -- the public id (delivery log, event id)
    kind             text NOT NULL CHECK (kind ~ '^[a-z][a-z0-9_.]{0,62}$'),   -- picks the handler
    object_type      text NOT NULL CHECK (object_type ~ '^[A-Za-z]{1,40}$'),
    object_id        uuid NOT NULL,
    order_id         uuid,                                              -- the order it concerns, if any (for listing)
    payload          jsonb NOT NULL,
    state            text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'DELIVERED', 'GIVEN_UP')),
    attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  timestamptz DEFAULT now(),                         -- due time, or the end of a claim's lease
    claim_token      uuid,                                              -- the current claim; results need it
    retry_since      timestamptz NOT NULL DEFAULT now(),                -- the give-up horizon counts from here
    target           text,                                              -- where the last attempt went (no secret)
    last_status_code integer,
    last_error       text CHECK (length(last_error) <= 1000),           -- never a secret
    delivered_at     timestamptz,
    given_up_at      timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT outbox_due_check CHECK ((state = 'PENDING') = (next_attempt_at IS NOT NULL))
);
CREATE UNIQUE INDEX outbox_uuid_key ON outbox (uuid);
-- Due rows, oldest due first.
CREATE INDEX outbox_due_idx ON outbox (next_attempt_at, id) WHERE state = 'PENDING';
-- "Is an earlier message of this (kind, object) still undelivered?"
CREATE INDEX outbox_object_idx ON outbox (kind, object_id, id) WHERE state = 'PENDING';
-- Listings (merchantWebhookDeliveries), newest first, whole or per order.
CREATE INDEX outbox_kind_created_idx ON outbox (kind, created_at DESC, uuid DESC);
CREATE INDEX outbox_order_idx ON outbox (order_id, created_at DESC) WHERE order_id IS NOT NULL;
