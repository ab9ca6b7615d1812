-- receiptq.guard_job_state: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.
--
-- The trigger that calls it lives here too (CREATE OR REPLACE TRIGGER): the rule and where it
-- applies are read together.

CREATE OR REPLACE FUNCTION receiptq.guard_job_state() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- The worker's write path ends jobs; it never re-opens or rewrites a verdict.
    IF OLD.state NOT IN ('granted', 'already_granted', 'rejected', 'owned_elsewhere', 'resubmit')
       AND pg_catalog.pg_has_role(current_user, 'receiptq_worker', 'MEMBER') THEN
        RETURN NULL;
    END IF;
    -- The schema's owner (an operator by hand, or a SECURITY DEFINER function of the schema) may.
    IF pg_catalog.pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RETURN NULL;
    END IF;
    IF OLD.state IN ('granted', 'already_granted', 'rejected', 'owned_elsewhere', 'resubmit') THEN
        RAISE EXCEPTION 'job %: % is a verdict, and a verdict never changes', OLD.id, OLD.state
            USING ERRCODE = '42501', HINT = 'only the schema''s owner may correct a verdict by hand';
    END IF;
    RAISE EXCEPTION 'job %: only a worker''s login ends a job %', OLD.id, NEW.state
        USING ERRCODE = '42501', HINT = 'the scheduler requeues or gives up (failed); verdicts come from the workers';
END $$;

COMMENT ON FUNCTION receiptq.guard_job_state() IS
    'Trigger of jobs_guard_state: a verdict state (granted, already_granted, rejected, owned_elsewhere, resubmit) is written only by a receiptq_worker login (or the owner), and once written never changes but by the owner. Without it the scheduler''s login, which may write state to requeue and give up, could end a payer''s job rejected.';

REVOKE ALL ON FUNCTION receiptq.guard_job_state() FROM PUBLIC;

-- Fires only on a change into or out of a verdict: the scheduler's requeues and give-ups, claims
-- and retries never call the function (the WHEN clause is evaluated in the executor, cheaply).
--
-- AFTER, not BEFORE: the guard only refuses, it never changes the row, and PostgreSQL 15
-- recomputes every stored generated column on each UPDATE of a table that has any BEFORE UPDATE
-- row trigger (it cannot know what the trigger changes) — even when the trigger's WHEN is false.
-- As a BEFORE trigger it made every claim, retry and verdict write detoast the job's receipt and
-- hash it again for receipt_sha256: 4.9 % of PostgreSQL's CPU in `bench queue`'s drain on
-- eight-byte receipts (perf), ~6 KB of TOAST read and SHA-256 per write on real ones. An error
-- raised here still aborts the statement. SchemaTests keeps jobs free of BEFORE UPDATE triggers.
CREATE OR REPLACE TRIGGER jobs_guard_state
    AFTER UPDATE OF state ON receiptq.jobs
    FOR EACH ROW
    WHEN (OLD.state IS DISTINCT FROM NEW.state
          AND (OLD.state IN ('granted', 'already_granted', 'rejected', 'owned_elsewhere', 'resubmit')
               OR NEW.state IN ('granted', 'already_granted', 'rejected', 'owned_elsewhere', 'resubmit')))
    EXECUTE FUNCTION receiptq.guard_job_state();
