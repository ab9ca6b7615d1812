-- The console's cost on a big queue (./Deploy/dev console-bench): :jobs jobs over 100,000 users —
-- 90% finished (granted, with their ledger rows), 5% failed, 4% queued, 1% timed out — as a
-- fleet's history looks, then ANALYZE. Run as the owner on a fresh migrated database.
\set ON_ERROR_STOP 1
-- Ledger rows first: a granted job names its row (purchase_key), as the worker writes it; job ids follow n.
-- Each grant's original transaction has its owner (grants_owner_fkey).
INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source)
SELECT 'tx-' || n, 'user-' || (n % 100000), 'Production', 'proof' FROM generate_series(1, :jobs) AS n WHERE n % 100 < 90;
INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key, product_type, granted_at)
SELECT 'tx-' || n, 'tx-' || n, n, 'user-' || (n % 100000), 'com.example.p' || (n % 20), 'Production', 'purchase:tx-' || n, 'non_consumable',
       now() - (n % 86400) * interval '1 second'
FROM generate_series(1, :jobs) AS n WHERE n % 100 < 90;
INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, run_at, finished_at, outcome_reason,
                           last_error, apple_status, purchase_key, created_at, updated_at)
SELECT 'YmVuY2g=' || n, 'tx-' || n, 'user-' || (n % 100000), 'com.example.p' || (n % 20),
       s.state, 1, now() - (n % 86400) * interval '1 second',
       CASE WHEN s.state IN ('granted', 'failed') THEN now() - (n % 86400) * interval '1 second' END,
       CASE WHEN s.state = 'failed' THEN 'gave up after 10 attempts; last error: HTTP 503' END,
       CASE WHEN s.state = 'timed_out' THEN 'timeout' END,
       CASE WHEN s.state = 'failed' THEN 21005 END,
       CASE WHEN s.state = 'granted' THEN 'purchase:tx-' || n END,
       now() - (n % 86400) * interval '1 second', now() - (n % 86400) * interval '1 second'
FROM generate_series(1, :jobs) AS n,
     LATERAL (SELECT CASE WHEN n % 100 < 90 THEN 'granted' WHEN n % 100 < 95 THEN 'failed' WHEN n % 100 < 99 THEN 'queued' ELSE 'timed_out' END
              AS state) s;
ANALYZE;
