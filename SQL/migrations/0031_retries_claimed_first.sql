-- 0031: a job that Apple answered with a transient failure goes back with run_at = now + its delay,
-- which put it behind every job already waiting: with a backlog (after an outage, or while Apple is
-- slower than the submissions) a retried receipt waited for the whole backlog, and the last verdicts
-- of a degraded-Apple run were all retries, ~30 s after the rest. ClaimBatch now takes ready jobs that
-- were tried before first (oldest run_at first), then the rest; this index holds only those, so the
-- first scan stays as short as the retries waiting, and a fresh job (attempts 0) is never in it.
-- A job released by a stopping worker gets its attempt back and is fresh again.

CREATE INDEX jobs_retry_ready_idx ON receiptq.jobs (kind, run_at, id) WHERE state = 'queued' AND attempts > 0;
