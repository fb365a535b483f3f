-- The reconciler re-reads orders with a PENDING refund (docs/api.md, "Reconciliation"): it finds
-- them through this index, oldest refund first, without reading settled refunds.
CREATE INDEX refunds_pending_idx ON refunds (created_at) WHERE status = 'PENDING';
