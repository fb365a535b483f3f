-- Refunds, captures and cancellations (docs/api.md, "Refunds, captures and cancellations").
-- Refunds reserve the payment's captured amount under a row lock (RefundStore.reserve); the
-- database also refuses a refunded total above the payment, whatever the code does.

ALTER TABLE payments
    ADD CONSTRAINT payments_refunded_within_amount CHECK (amount_refunded_minor <= amount_minor);

-- A refund's reference is the merchant reference sent to the provider; its reason is the contract's RefundReason.
ALTER TABLE refunds
    ADD CONSTRAINT refunds_reference_check CHECK (reference ~ '^[A-Za-z0-9_-]{3,40}$'),
    ADD CONSTRAINT refunds_reason_check CHECK (reason IS NULL OR reason IN (
        'DUPLICATE_OR_DELAYED_PAYMENT', 'PRODUCT_UNAVAILABLE', 'CUSTOMER_NOT_SATISFIED', 'PRODUCT_LOST_OR_DAMAGED',
        'DIGITAL_DOWNLOAD_ISSUE', 'EVENT_CANCELLED', 'BILL_PAYMENT_FAILED', 'OTHER'));

-- Keyset pages of `payments` and `refunds`, newest first by default (like `orders`).
CREATE INDEX payments_created_idx ON payments (created_at DESC, id DESC);
CREATE INDEX refunds_created_idx ON refunds (created_at DESC, id DESC);
CREATE INDEX refunds_order_idx ON refunds (order_id);
-- Refunds whose provider outcome is unknown, for the reconciler.
CREATE INDEX refunds_reconcile_idx ON refunds (updated_at) WHERE needs_reconciliation;
