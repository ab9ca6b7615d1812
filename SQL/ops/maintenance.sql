-- Interventions. Each is guarded so it cannot touch a job that finished meanwhile.

-- Retry failed jobs now (e.g. after an Apple outage longer than the retry deadline).
-- Prefer `receiptq redrive --failed-within 7d` (or --job ID): the same statement, tested.
-- Gives them a fresh budget (attempts from 0, the deadline counted from now); the reason they
-- failed is kept in last_error.
UPDATE receiptq.jobs
SET state = 'queued', run_at = now(), attempts = 0, redriven_at = now(), bounded_answers = 0,
    finished_at = NULL, outcome_reason = NULL,
    last_error = 'failed: ' || coalesce(outcome_reason, '') || ' (re-driven)', updated_at = now()
WHERE state = 'failed' AND finished_at > now() - interval '7 days'
RETURNING id;

-- Release every lease held by a worker you know is dead (instead of waiting for the lease).
-- psql: \set worker 'worker-host-1234'
UPDATE receiptq.jobs
SET state = 'queued', run_at = now(), locked_by = NULL, locked_until = NULL,
    last_error = 'released by operator', updated_at = now()
WHERE state = 'verifying' AND locked_by = :'worker'
RETURNING id;

-- Totals per state over the whole table. Slow on millions of rows (reads every finished job):
-- prefer receiptq.outcomes for recent figures.
SELECT state, count(*) FROM receiptq.jobs GROUP BY state ORDER BY state;
