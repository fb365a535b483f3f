-- Linked UPI accounts (docs/api.md, "Razorpay Turbo UPI"; API README decision 4 and "Storage"):
-- what the Turbo SDK reported, per customer and Turbo mobile number, keyed by (provider, masked
-- account, bank). The contract's statuses are ACTIVE / INACTIVE / REMOVED (0001 said REVOKED), and an
-- account reported for a mobile number that no customer has yet is kept without a customer.
-- Only a mask is stored: six X and the last four digits, never more (the CHECK holds it).
ALTER TABLE linked_accounts DROP CONSTRAINT linked_accounts_status_check;
UPDATE linked_accounts SET status = 'REMOVED' WHERE status = 'REVOKED';
ALTER TABLE linked_accounts DROP CONSTRAINT linked_accounts_kind_check;
ALTER TABLE linked_accounts
    ALTER COLUMN customer_id DROP NOT NULL,
    ALTER COLUMN masked_identifier DROP NOT NULL,
    ADD CONSTRAINT linked_accounts_status_check CHECK (status IN ('ACTIVE', 'INACTIVE', 'REMOVED')),
    ADD CONSTRAINT linked_accounts_kind_check CHECK (kind IN ('BANK_ACCOUNT', 'CREDIT_CARD')),
    ADD CONSTRAINT linked_accounts_mask_check CHECK (masked_identifier ~ '^X{6}[0-9]{4}$'),
    ADD COLUMN mobile_number        text NOT NULL CHECK (mobile_number ~ '^[6-9][0-9]{9}$'),
    ADD COLUMN ifsc                 text CHECK (ifsc ~ '^[A-Z]{4}0[A-Z0-9]{6}$'),
    ADD COLUMN bank_logo_url        text CHECK (length(bank_logo_url) <= 2048),
    ADD COLUMN bank_placeholder_url text CHECK (length(bank_placeholder_url) <= 2048),
    ADD COLUMN pin_length           integer CHECK (pin_length IN (4, 6)),
    ADD COLUMN account_type         text CHECK (account_type IN ('SAVINGS', 'CURRENT', 'CREDIT')),
    ADD COLUMN source               text NOT NULL
                                    CHECK (source IN ('LINK_NEW_ACCOUNT', 'GET_LINKED_ACCOUNTS', 'MANAGE_ACCOUNTS', 'TPV_LINK')),
    ADD COLUMN linked_at            timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN last_seen_at         timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN removed_at           timestamptz;
CREATE INDEX linked_accounts_mobile_idx ON linked_accounts (mobile_number, linked_at, id);
