-- An API key revoked (`payql keys revoke`, or by hand): its open subscriptions end on every
-- instance, as a revoked client session's do (0013). Delivered at commit, on `payql_events`.
CREATE FUNCTION payql_notify_api_key_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('payql_events', 'ApiKey:' || NEW.id::text);
    RETURN NULL;
END $$;
CREATE TRIGGER api_keys_notify_revoked AFTER UPDATE OF revoked_at ON api_keys
    FOR EACH ROW WHEN (NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL)
    EXECUTE FUNCTION payql_notify_api_key_revoked();
