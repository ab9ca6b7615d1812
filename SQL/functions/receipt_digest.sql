-- receiptq.receipt_digest: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE FUNCTION receiptq.receipt_digest(receipt text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN sha256(convert_to(receipt, 'UTF8'::name));

REVOKE ALL ON FUNCTION receiptq.receipt_digest(receipt text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.receipt_digest(receipt text) TO receiptq_api;
GRANT ALL ON FUNCTION receiptq.receipt_digest(receipt text) TO receiptq_worker;
GRANT ALL ON FUNCTION receiptq.receipt_digest(receipt text) TO receiptq_scheduler;
-- Support's re-drives and discards update jobs rows, which recomputes the generated digest.
GRANT ALL ON FUNCTION receiptq.receipt_digest(receipt text) TO receiptq_support;
