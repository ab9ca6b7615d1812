-- receiptq.check_trusted_claim: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.
--
-- The trigger that calls it lives here too (CREATE OR REPLACE TRIGGER).

CREATE OR REPLACE FUNCTION receiptq.check_trusted_claim() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF NEW.trusted_claim
       AND NOT pg_catalog.pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE')
       AND NOT EXISTS (
           SELECT 1 FROM receiptq.trusted_claim_tokens t
           WHERE NEW.claim_proof IS NOT NULL
             AND t.digest = pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(NEW.claim_proof, 'UTF8')), 'hex')) THEN
        -- Not refused (one bad row would fail the API's whole group commit): queued as a plain
        -- claim, which grants only to the owner Apple's signed appAccountToken names.
        NEW.trusted_claim := false;
        RAISE WARNING 'job for user %: a trusted claim without a registered token was queued as a plain claim', NEW.user_id;
    END IF;
    NEW.claim_proof := NULL;
    RETURN NEW;
END $$;

COMMENT ON FUNCTION receiptq.check_trusted_claim() IS
    'Trigger of jobs_check_trusted_claim: keeps trusted_claim only when claim_proof hashes to a digest in receiptq.trusted_claim_tokens (or the owner inserts), and never stores claim_proof.';

REVOKE ALL ON FUNCTION receiptq.check_trusted_claim() FROM PUBLIC;

-- Fires only for a claim that says it is trusted, or carries a proof: other inserts never call it.
CREATE OR REPLACE TRIGGER jobs_check_trusted_claim
    BEFORE INSERT ON receiptq.jobs
    FOR EACH ROW
    WHEN (NEW.trusted_claim OR NEW.claim_proof IS NOT NULL)
    EXECUTE FUNCTION receiptq.check_trusted_claim();
