-- Instamojo UPI collect requests (issue 11, flow F18): one row per collect sent to a
-- customer's VPA. PayQL polls the provider for it server-side, at most once per
-- `next_check_at` and by one poller at a time (`poll_lease_until`, claimed by an
-- UPDATE ... WHERE lease free), so any instance answers `upiCollect` and many readers
-- cost one upstream poll. The VPA is kept masked; its keyed hash (blind index) only
-- when a data key is configured.

CREATE TABLE upi_collects (
    id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    order_id             uuid NOT NULL REFERENCES orders (id),
    provider             text NOT NULL CHECK (provider IN ('instamojo')),
    -- NULL while the request's outcome is unknown (its answer was lost after sending).
    provider_payment_id  text,
    status_url           text,
    vpa_masked           text NOT NULL,
    vpa_hash             bytea,
    status               text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED', 'EXPIRED')),
    provider_status_code text,
    provider_message     text,
    payment_id           uuid REFERENCES payments (id),
    requested_at         timestamptz NOT NULL DEFAULT now(),
    last_checked_at      timestamptz,
    next_check_at        timestamptz NOT NULL DEFAULT now(),
    poll_lease_until     timestamptz,
    -- Upstream status checks made (successful or not).
    checks               integer NOT NULL DEFAULT 0 CHECK (checks >= 0),
    last_check_error     text,
    expires_at           timestamptz NOT NULL,
    completed_at         timestamptz,
    updated_at           timestamptz NOT NULL DEFAULT now(),
    CHECK ((status = 'PENDING') = (completed_at IS NULL))
);
CREATE INDEX upi_collects_order_idx ON upi_collects (order_id, requested_at DESC);
-- One collect waiting per order: a second request while one is PENDING is refused.
CREATE UNIQUE INDEX upi_collects_one_pending_idx ON upi_collects (order_id) WHERE status = 'PENDING';
CREATE UNIQUE INDEX upi_collects_provider_payment_idx ON upi_collects (provider, provider_payment_id)
    WHERE provider_payment_id IS NOT NULL;
-- The background poller's due list.
CREATE INDEX upi_collects_due_idx ON upi_collects (next_check_at) WHERE status = 'PENDING';
