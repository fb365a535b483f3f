-- Webhook group commit (Sources/Gateway/Webhooks/WebhookBatchWriter.swift) stores each delivery's
-- event row once, with the outcome and links it will have, before applying it: the payment such an
-- event creates is inserted after its row, in the same transaction. So the row's link to its payment
-- is checked when the transaction commits instead of at once (still checked: a link to a payment
-- that does not exist by then fails the commit).
ALTER TABLE webhook_events ALTER CONSTRAINT webhook_events_payment_id_fkey DEFERRABLE INITIALLY DEFERRED;

-- The live-update triggers of orders and payments (0013) compared a changed row with the row before
-- as jsonb (to_jsonb of both, the bookkeeping columns removed) on every UPDATE: for a webhook that
-- adds to what an order has received, the largest part of its order's UPDATE (to_jsonb was 4 % of
-- PostgreSQL's CPU in the webhook benchmark). The same comparison on the rows themselves, with the
-- same columns left out (set to NULL in both copies): the columns' own equality, no jsonb built.
CREATE OR REPLACE FUNCTION payql_notify_order_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    new_row orders := NEW;
    old_row orders := OLD;
BEGIN
    new_row.updated_at := NULL; old_row.updated_at := NULL;
    new_row.last_synced_at := NULL; old_row.last_synced_at := NULL;
    new_row.reconcile_after := NULL; old_row.reconcile_after := NULL;
    new_row.reconcile_attempts := NULL; old_row.reconcile_attempts := NULL;
    IF new_row IS DISTINCT FROM old_row THEN
        PERFORM pg_notify('payql_events', 'Order:' || NEW.id::text);
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION payql_notify_payment_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    new_row payments;
    old_row payments;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        new_row := NEW;
        old_row := OLD;
        new_row.updated_at := NULL;
        old_row.updated_at := NULL;
        IF new_row IS NOT DISTINCT FROM old_row THEN
            RETURN NULL;
        END IF;
    END IF;
    PERFORM pg_notify('payql_events', 'Order:' || NEW.order_id::text);
    RETURN NULL;
END $$;
