-- Rewards (issue 11, decision 5): PayQL's own offers, their coupon pools, and the
-- rewards allotted from them. The 0001 `rewards` table is kept and extended.

CREATE TABLE reward_offers (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name              text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    action            text NOT NULL CHECK (action IN ('ONBOARDING', 'PAYMENT')),
    partner_name      text NOT NULL CHECK (length(partner_name) BETWEEN 1 AND 200),
    partner_logo_url  text,
    pre_allot_text    text,
    post_allot_text   text,
    terms             text[] NOT NULL DEFAULT '{}',
    currency          char(3) NOT NULL DEFAULT 'INR' CHECK (currency ~ '^[A-Z]{3}$'),
    min_amount_minor  bigint CHECK (min_amount_minor >= 0),
    max_amount_minor  bigint CHECK (max_amount_minor >= 0),
    valid_from        timestamptz,
    valid_until       timestamptz,
    active            boolean NOT NULL DEFAULT true,
    max_per_customer  integer NOT NULL DEFAULT 1 CHECK (max_per_customer >= 1),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CHECK (min_amount_minor IS NULL OR max_amount_minor IS NULL OR min_amount_minor <= max_amount_minor),
    CHECK (valid_from IS NULL OR valid_until IS NULL OR valid_from < valid_until)
);
CREATE INDEX reward_offers_action_idx ON reward_offers (action, active);

-- One row per coupon code; `reward_id` is set when the coupon is allotted (taken with
-- FOR UPDATE SKIP LOCKED, and UNIQUE so no coupon is ever given twice).
CREATE TABLE reward_coupons (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    offer_id    uuid NOT NULL REFERENCES reward_offers (id),
    code        text NOT NULL CHECK (length(code) BETWEEN 1 AND 200),
    reward_id   uuid UNIQUE,
    allotted_at timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (offer_id, code)
);
CREATE INDEX reward_coupons_free_idx ON reward_coupons (offer_id, created_at, id) WHERE reward_id IS NULL;

ALTER TABLE rewards
    ADD COLUMN offer_id   uuid REFERENCES reward_offers (id),
    ADD COLUMN coupon_id  uuid UNIQUE REFERENCES reward_coupons (id),
    ADD COLUMN source     text NOT NULL DEFAULT 'PAYQL' CHECK (source IN ('PAYQL', 'MANUAL')),
    ADD COLUMN expires_at timestamptz,
    ADD COLUMN revoked_at timestamptz;
ALTER TABLE rewards DROP CONSTRAINT rewards_status_check;
ALTER TABLE rewards ADD CONSTRAINT rewards_status_check
    CHECK (status IN ('ELIGIBLE', 'INELIGIBLE', 'ALLOTTED', 'EXPIRED', 'REVOKED'));
-- One reward per (offer, order), by constraint: an order may earn several offers' rewards.
ALTER TABLE rewards DROP CONSTRAINT rewards_order_id_action_key;
ALTER TABLE rewards ADD CONSTRAINT rewards_offer_order_key UNIQUE (offer_id, order_id);
CREATE INDEX rewards_customer_idx ON rewards (customer_id, offer_id);
CREATE INDEX rewards_order_idx ON rewards (order_id);
