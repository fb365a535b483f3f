-- Rejected webhook deliveries are listed by `webhookEvents` (outcome REJECTED) beside the
-- accepted ones, with the same kind of id and cursor: give them a uuid.
ALTER TABLE webhook_rejections ADD COLUMN uuid uuid NOT NULL DEFAULT gen_random_uuid();
CREATE UNIQUE INDEX webhook_rejections_uuid_key ON webhook_rejections (uuid);
CREATE INDEX webhook_rejections_received_idx ON webhook_rejections (received_at DESC, uuid DESC);
