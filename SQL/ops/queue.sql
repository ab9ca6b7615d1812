-- Paste into psql (./Deploy/dev psql, or psql "$DATABASE_URL"). All read-only.

-- How much work is waiting, per state (ready = due now; for verifying: lease valid vs expired).
SELECT * FROM receiptq.queue_depth;

-- Is the queue healthy? Oldest ready job age should stay in seconds; expired_leases near 0.
SELECT * FROM receiptq.queue_health;

-- What finished in the last minute / hour.
SELECT * FROM receiptq.outcomes;

-- Why jobs are not being granted (rejections, failures, errors of jobs waiting to retry).
SELECT * FROM receiptq.failures LIMIT 20;

-- The 20 oldest jobs that are ready but not claimed (workers down or saturated?).
SELECT id, transaction_id, user_id, attempts, now() - run_at AS waiting, last_error
FROM receiptq.jobs WHERE state = 'queued' AND run_at <= now()   -- jobs_ready_idx
ORDER BY run_at, id LIMIT 20;

-- Leases per worker (which workers are busy, which hold expired leases).
SELECT locked_by, count(*) AS leased, count(*) FILTER (WHERE locked_until < now()) AS expired,
       min(locked_until) AS next_expiry
FROM receiptq.jobs WHERE state = 'verifying' GROUP BY locked_by ORDER BY leased DESC;   -- jobs_lease_idx
