-- Routing (issue 11, F28): the rules `createOrder` without a provider follows, and the
-- decision each routed order was made with (what `Order.routing` shows).

-- One row per rule; the lowest priority that matches and names an eligible provider decides.
-- Priorities are unique, so the order of evaluation is never a tie.
CREATE TABLE routing_rules (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name              text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    priority          integer NOT NULL,
    enabled           boolean NOT NULL DEFAULT true,
    flows             text[] NOT NULL DEFAULT '{}',
    methods           text[] NOT NULL DEFAULT '{}',
    currency          char(3) NOT NULL DEFAULT 'INR' CHECK (currency ~ '^[A-Z]{3}$'),
    min_amount_minor  bigint CHECK (min_amount_minor >= 0),
    max_amount_minor  bigint CHECK (max_amount_minor >= 0),
    -- Provider names as `orders.provider` spells them, in preference order.
    providers         text[] NOT NULL CHECK (cardinality(providers) BETWEEN 1 AND 3
                                             AND providers <@ ARRAY['razorpay', 'cashfree', 'instamojo']),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT routing_rules_priority_key UNIQUE (priority),
    CHECK (min_amount_minor IS NULL OR max_amount_minor IS NULL OR min_amount_minor <= max_amount_minor)
);

-- The routing decision of an order (candidates, reason, failover order, failovers that happened),
-- written with the order row and again on each failover; NULL for orders made before routing.
ALTER TABLE orders ADD COLUMN routing jsonb;
