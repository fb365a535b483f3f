-- Webhook group commit (Sources/Gateway/Webhooks/WebhookBatchWriter.swift) stores each delivery's
-- event row once, with the outcome and links it will have, before applying it: the payment such an
-- event creates is inserted after its row, in the same transaction. So the row's link to its payment
-- is checked when the transaction commits instead of at once (still checked: a link to a payment
-- that does not exist by then fails the commit).
ALTER TABLE webhook_events ALTER CONSTRAINT webhook_events_payment_id_fkey DEFERRABLE INITIALLY DEFERRED;
