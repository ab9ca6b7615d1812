-- receiptq.notify_jobs_finished: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE FUNCTION receiptq.notify_jobs_finished() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('receiptq_results', n.id::text)
    FROM changed n JOIN before o ON o.id = n.id
    WHERE n.finished_at IS NOT NULL AND o.finished_at IS NULL;
    RETURN NULL;
END $$;

REVOKE ALL ON FUNCTION receiptq.notify_jobs_finished() FROM PUBLIC;
