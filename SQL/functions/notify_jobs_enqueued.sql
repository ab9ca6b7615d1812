-- receiptq.notify_jobs_enqueued: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE FUNCTION receiptq.notify_jobs_enqueued() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM inserted) THEN
        PERFORM pg_notify('receiptq_jobs', '');
    END IF;
    RETURN NULL;
END $$;

REVOKE ALL ON FUNCTION receiptq.notify_jobs_enqueued() FROM PUBLIC;
