-- Live events for GraphQL subscriptions over SSE (docs/api.md, "Live updates"): every committed
-- client-visible change NOTIFYs channel payql_events with '<Type>:<uuid>', so the subscribers of
-- every instance re-read the object. NOTIFY is delivered at commit, once per distinct payload per
-- transaction. UpiCollect and BillPayment rows notify from their own code (pg_notify in the
-- transaction that changes them); orders, their payments and refunds notify through these triggers,
-- so no code path that changes an order can forget to.

-- An order changed in anything but the reconciler's bookkeeping.
CREATE FUNCTION payql_notify_order_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (to_jsonb(NEW) - ARRAY['updated_at', 'last_synced_at', 'reconcile_after', 'reconcile_attempts'])
       IS DISTINCT FROM (to_jsonb(OLD) - ARRAY['updated_at', 'last_synced_at', 'reconcile_after', 'reconcile_attempts']) THEN
        PERFORM pg_notify('payql_events', 'Order:' || NEW.id::text);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER orders_notify_changed AFTER UPDATE ON orders
    FOR EACH ROW EXECUTE FUNCTION payql_notify_order_changed();

-- A payment of an order appeared or changed (Order.payments).
CREATE FUNCTION payql_notify_payment_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR to_jsonb(NEW) - 'updated_at' IS DISTINCT FROM to_jsonb(OLD) - 'updated_at' THEN
        PERFORM pg_notify('payql_events', 'Order:' || NEW.order_id::text);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER payments_notify_changed AFTER INSERT OR UPDATE ON payments
    FOR EACH ROW EXECUTE FUNCTION payql_notify_payment_changed();

-- A refund of an order appeared or changed (Order.refunds).
CREATE FUNCTION payql_notify_refund_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR to_jsonb(NEW) - 'updated_at' IS DISTINCT FROM to_jsonb(OLD) - 'updated_at' THEN
        PERFORM pg_notify('payql_events', 'Order:' || coalesce(NEW.order_id, (SELECT order_id FROM payments WHERE id = NEW.payment_id))::text);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER refunds_notify_changed AFTER INSERT OR UPDATE ON refunds
    FOR EACH ROW EXECUTE FUNCTION payql_notify_refund_changed();

-- A client session revoked: its subscriptions end on every instance.
CREATE FUNCTION payql_notify_session_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('payql_events', 'ClientSession:' || NEW.id::text);
    RETURN NULL;
END $$;
CREATE TRIGGER client_sessions_notify_revoked AFTER UPDATE OF revoked_at ON client_sessions
    FOR EACH ROW WHEN (NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL)
    EXECUTE FUNCTION payql_notify_session_revoked();
