-- 0041: a job's events found by the job. The console's job page (and `SELECT … FROM receiptq.events
-- WHERE job_id = …` in psql) read every retained event, 30 days of them by default: nothing indexed
-- events by job. One btree entry per event (a bigint), written in the verdict's own transaction.
-- Events appended by no job (support's grants, Apple's notifications) have no entry. IF NOT EXISTS:
-- on a large events table, build it first with CREATE INDEX CONCURRENTLY (same name and definition)
-- and this migration does nothing (docs/CHANGELOG.md).

CREATE INDEX IF NOT EXISTS events_job_idx ON receiptq.events (job_id) WHERE job_id IS NOT NULL;
