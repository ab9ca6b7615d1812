-- Trusting a root other than Apple's is explicit and loud (--trust-test-roots), and what was
-- granted under it says so: a worker that trusts test roots (the fake App Store's CA in tests and
-- demos) marks every grant it makes `signed_under = 'test-roots'`. A production ledger holds
-- `apple` only; a row that says otherwise was made by test equipment.
--
-- And the ledger's history sheds a dead function: receiptq.record_grant (0003) was replaced by
-- receiptq.record_purchase in 0008 and has not been called since.

ALTER TABLE receiptq.grants ADD COLUMN signed_under text NOT NULL DEFAULT 'apple';
ALTER TABLE receiptq.grants ADD CONSTRAINT grants_signed_under_check CHECK (signed_under IN ('apple', 'test-roots'));
COMMENT ON COLUMN receiptq.grants.signed_under IS
    'apple: granted by a worker trusting only Apple''s roots; test-roots: by a worker started with --trust-test-roots (test equipment, never production).';
GRANT UPDATE (signed_under) ON receiptq.grants TO receiptq_worker;

DROP FUNCTION receiptq.record_grant(bigint, text, text, text, text, integer, timestamptz, text, text, boolean);
