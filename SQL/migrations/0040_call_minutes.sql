-- 0040: what the workers' calls out looked like, minute by minute (issue 47: the console's Apple
-- latency, breaker and webhook charts). Latency and a breaker's state exist only in the process
-- that made the call, and Prometheus is not the console's source: so each worker (and the
-- scheduler) sums its calls in memory per minute and target (`CallTally`) and adds its sums here
-- every few seconds (`CallMinutes.add`: one upsert per target with calls or a breaker not closed).
-- Quiet processes write nothing. The scheduler deletes rows past seven days (`PruneCallMinutes`).
--
-- Latency is a histogram, not a percentile: counts per bucket add up across workers and beats, and
-- the console reads p50/p99 from the sum (to the bucket's upper bound; the bounds are
-- `CallTally.latencyBoundsMilliseconds`, the last bucket open-ended).

CREATE TABLE receiptq.call_minutes (
    minute timestamptz NOT NULL CHECK (date_trunc('minute', minute) = minute),
    target text NOT NULL CHECK (target IN ('verify_receipt.production', 'verify_receipt.sandbox',
                                           'server_api.production', 'server_api.sandbox', 'webhooks')),
    process text NOT NULL CHECK (length(process) BETWEEN 1 AND 200),
    calls bigint NOT NULL CHECK (calls >= 0),
    failures bigint NOT NULL CHECK (failures BETWEEN 0 AND calls),
    latency_buckets bigint[] NOT NULL CHECK (cardinality(latency_buckets) = 23),
    breaker text NOT NULL CHECK (breaker IN ('closed', 'half-open', 'open')),
    PRIMARY KEY (minute, target, process)
);

COMMENT ON TABLE receiptq.call_minutes IS
    'Per minute (UTC, truncated), call target and process (a worker''s --name, or the scheduler): calls made, how many failed (no answer, or Apple''s trouble / the endpoint''s non-2xx), their latency as counts per bucket (upper bounds in ms: 10 20 30 50 75 100 150 200 300 500 750 1000 1500 2000 3000 4000 5000 6000 8000 10000 15000 30000, then any), and the worst circuit-breaker state the process saw for that target in the minute. Kept 7 days.';

GRANT SELECT ON receiptq.call_minutes TO receiptq_readonly;
GRANT SELECT, INSERT, UPDATE ON receiptq.call_minutes TO receiptq_worker;
GRANT SELECT, INSERT, UPDATE, DELETE ON receiptq.call_minutes TO receiptq_scheduler;
