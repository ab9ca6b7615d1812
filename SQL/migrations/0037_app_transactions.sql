-- 0037: the customer's app transaction (StoreKit 2's AppTransaction: their download of the app,
-- one per Apple Account and app), submitted by the backend for its user (issue 46). What a
-- paid-to-free app needs: the version first downloaded and when, so customers who paid for the
-- app keep what they paid for; and what ties Apple's RESCIND_CONSENT (which names the Apple
-- Account only by its app transaction id) to the backend's user.
--
-- One owner per app transaction, as for purchases (DESIGN: Ownership): the first user to submit
-- it with Apple's signature. The same signed AppTransaction under another account is refused, so
-- one paid download cannot entitle many accounts.

CREATE TABLE receiptq.app_transactions (
    app_transaction_id           text        NOT NULL CHECK (length(app_transaction_id) BETWEEN 1 AND 64),
    environment                  text        NOT NULL CHECK (environment IN ('Production', 'Sandbox')),
    user_id                      text        NOT NULL CHECK (length(user_id) BETWEEN 1 AND 256),
    bundle_id                    text        NOT NULL,
    original_application_version text,
    original_purchase_date       timestamptz,
    original_platform            text,
    application_version          text,
    signed_at                    timestamptz NOT NULL,
    first_seen_at                timestamptz NOT NULL DEFAULT now(),
    updated_at                   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_transaction_id, environment)
);

COMMENT ON TABLE receiptq.app_transactions IS
    'Each customer''s app transaction (StoreKit 2 AppTransaction), verified by the API and kept for the user who first submitted it: the version first downloaded (paid-to-free migrations) and the Apple Account RESCIND_CONSENT names. Never moved; the newest signature updates application_version.';
COMMENT ON COLUMN receiptq.app_transactions.original_application_version IS
    'The app version (CFBundleVersion on iOS) the customer first downloaded: for "bought the app before version X".';
COMMENT ON COLUMN receiptq.app_transactions.application_version IS 'The version the newest submitted signature was made for.';

CREATE INDEX app_transactions_user_idx ON receiptq.app_transactions (user_id);

GRANT SELECT, INSERT ON receiptq.app_transactions TO receiptq_api;
GRANT UPDATE (application_version, signed_at, updated_at) ON receiptq.app_transactions TO receiptq_api;
-- The worker maps RESCIND_CONSENT to its user; ops and support read.
GRANT SELECT ON receiptq.app_transactions TO receiptq_worker, receiptq_readonly;
