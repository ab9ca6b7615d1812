-- One job's story: set the id, then run. psql: \set id 12345
SELECT id, state, attempts, transaction_id, user_id, product_id, order_id, run_at, locked_by, locked_until,
       apple_status, apple_environment, last_error, outcome_reason, created_at, finished_at
FROM receiptq.jobs WHERE id = :id;

-- Every job for one Apple transaction (resubmissions, other receipts holding it).
-- psql: \set tx '1000000123456789'
-- By indexes only: no index leads with transaction_id for every state, and a plain
-- "WHERE transaction_id = …" read the whole table (10.5 s at 50M jobs, bench partitions). The jobs
-- not granted or verifying (jobs_unsettled_transaction_idx), the one that granted it (the ledger
-- names it), and those in flight (jobs_lease_idx).
SELECT id, state, user_id, created_at, finished_at, outcome_reason
FROM receiptq.jobs
WHERE id IN (SELECT id FROM receiptq.jobs WHERE transaction_id = :'tx' AND state <> ALL (ARRAY['verifying', 'granted'])
             UNION ALL SELECT job_id FROM receiptq.grants WHERE transaction_id = :'tx'
             UNION ALL SELECT id FROM receiptq.jobs WHERE state = 'verifying' AND transaction_id = :'tx')
ORDER BY created_at;

-- The grant for that transaction, if any (the ledger: at most one row per transaction).
SELECT * FROM receiptq.grants WHERE transaction_id = :'tx';
