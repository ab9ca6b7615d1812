-- 0022: a trusted transaction-id claim needs the backend's token, not the API's password (issue 22).
-- `receiptq api --trusted-claim-tokens` marks the claims of some backend tokens as proof of who
-- paid. Until now the database believed the API's login about it, so anyone holding that login's
-- password could queue `trusted_claim = true` for any account. Now the database keeps the digests it
-- trusts (written by the owner: `receiptq trusted-claims add`), the API passes the bearer token that
-- sent the claim in `claim_proof`, and the trigger in functions/check_trusted_claim.sql hashes it,
-- keeps the mark only when the digest is registered, and clears the column before the row is
-- written: the token is never stored.

CREATE TABLE receiptq.trusted_claim_tokens (
    digest text PRIMARY KEY CHECK (digest ~ '^[0-9a-f]{64}$'),
    note text CHECK (note IS NULL OR length(note) <= 200),
    added_at timestamptz NOT NULL DEFAULT now(),
    added_by text NOT NULL DEFAULT current_user
);

COMMENT ON TABLE receiptq.trusted_claim_tokens IS
    'SHA-256 digests (hex) of the API tokens whose transaction-id claims count as proof of who paid. Written by the owner only (receiptq trusted-claims); the API reads it to refuse a configuration the database would not believe.';

ALTER TABLE receiptq.jobs ADD COLUMN claim_proof text;

COMMENT ON COLUMN receiptq.jobs.claim_proof IS
    'Always NULL once written: the bearer token a trusted claim arrives with, checked against receiptq.trusted_claim_tokens and cleared by jobs_check_trusted_claim before the row is stored.';

GRANT SELECT ON receiptq.trusted_claim_tokens TO receiptq_api, receiptq_readonly;
-- Both logins that queue transactions name the column (the workers queue renewals Apple notifies).
GRANT INSERT (claim_proof) ON receiptq.jobs TO receiptq_api, receiptq_worker;
