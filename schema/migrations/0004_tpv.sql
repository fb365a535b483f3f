-- TPV bank accounts (docs/api.md, "TPV bank accounts"): the IFSC the provider confirmed beside the
-- one the merchant sent (Razorpay may answer another branch's IFSC; the sent one stays the identity
-- used for de-duplication and TPV orders), the key-id format, and listing by customer.
ALTER TABLE bank_accounts
    ADD COLUMN provider_ifsc text CHECK (provider_ifsc ~ '^[A-Z]{4}0[A-Z0-9]{6}$'),
    ADD CONSTRAINT bank_accounts_key_id_check CHECK (account_key_id ~ '^[0-9a-f]{8}$');
CREATE INDEX bank_accounts_customer_idx ON bank_accounts (customer_id, created_at, id);
