-- receiptq.append_failed_job_events: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE FUNCTION receiptq.append_failed_job_events(p_jobs bigint[]) RETURNS integer
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    -- finished_at = now(): only jobs this very transaction gave up (now() is the transaction's
    -- start), so a caller cannot replay events for anything else.
    SELECT receiptq.append_job_events(array_agg(j.id))
    FROM receiptq.jobs j
    WHERE j.id = ANY(p_jobs) AND j.state = 'failed' AND j.finished_at = now();
$$;

COMMENT ON FUNCTION receiptq.append_failed_job_events(p_jobs bigint[]) IS 'The scheduler''s (and support''s discard''s) only way to append events: job.failed for jobs its own transaction gave up.';

REVOKE ALL ON FUNCTION receiptq.append_failed_job_events(p_jobs bigint[]) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.append_failed_job_events(p_jobs bigint[]) TO receiptq_scheduler;
GRANT ALL ON FUNCTION receiptq.append_failed_job_events(p_jobs bigint[]) TO receiptq_support;
