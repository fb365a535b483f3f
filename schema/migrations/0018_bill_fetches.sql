-- Setu's bill-fetch user events (`bill_fetch_success` / `bill_fetch_failure`, docs/providers/setu.md §6)
-- applied to their bill-pay link by its `sessionId`: `BillPayLink.billFetches`. One row per stored
-- event (a redelivery is deduplicated before it gets here; reprocessing the event adds nothing).
-- Events stored before this migration are not copied: their stored payloads are redacted (biller
-- and customer names among them); `reprocessWebhookEvent` applies one, keeping what is redacted out.
CREATE TABLE bill_fetches (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    bill_pay_link_id  uuid NOT NULL REFERENCES bill_pay_links (id),
    webhook_event_id  uuid NOT NULL UNIQUE REFERENCES webhook_events (id),
    success           boolean NOT NULL,
    biller_id         text,
    biller_name       text,
    biller_category   text,
    -- Setu's billDetails[] as received (or one bill built from the deprecated single-bill fields).
    bills             jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(bills) = 'array'),
    error_code        text,
    error_message     text,
    fetched_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bill_fetches_link_idx ON bill_fetches (bill_pay_link_id, fetched_at, id);
