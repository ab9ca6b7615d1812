-- Read-only. Every intervention is a tested command that agrees with the job lifecycle:
--   receiptq redrive --failed-within 7d [--dry-run]   failed jobs back in the queue, fresh budget
--   receiptq redrive --job ID [--dry-run]
--   receiptq release --worker NAME [--dry-run]        a dead worker's leases end now, as if expired
--                                                     (a job past its retry budget ends failed)
--   receiptq notifications redrive …, receiptq webhooks redrive …

-- Failed jobs a re-drive would move (the last 7 days), with why they failed.
SELECT id, transaction_id, user_id, attempts, finished_at, outcome_reason
FROM receiptq.jobs WHERE state = 'failed' AND finished_at > now() - interval '7 days'   -- jobs_failed_idx
ORDER BY finished_at DESC LIMIT 50;

-- Leases a worker holds (what `receiptq release --worker` would end). psql: \set worker 'worker-host-1234'
SELECT 'jobs' AS queue, count(*) FROM receiptq.jobs WHERE state = 'verifying' AND locked_by = :'worker'
UNION ALL SELECT 'notifications', count(*) FROM receiptq.notifications WHERE state = 'applying' AND locked_by = :'worker'
UNION ALL SELECT 'consumption_requests', count(*) FROM receiptq.consumption_requests WHERE state = 'sending' AND locked_by = :'worker'
UNION ALL SELECT 'deliveries', count(*) FROM receiptq.deliveries WHERE state = 'delivering' AND locked_by = :'worker';

-- Totals per state over the whole table. Slow on millions of rows (reads every finished job):
-- prefer receiptq.outcomes for recent figures.
SELECT state, count(*) FROM receiptq.jobs GROUP BY state ORDER BY state;
