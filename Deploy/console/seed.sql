-- The console's browser journeys start from this (Deploy/console/browser_journeys.py), on a
-- fresh migrated database: a paid customer, a failed job to re-drive, a queued one, a webhook
-- endpoint with a failed delivery, and a worker's heartbeat.
-- The grant first: a granted job names its ledger row (purchase_key), as the worker writes it; and
-- before it, its original transaction's owner (grants_owner_fkey).
INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ('tx-paid-1', 'cust-1001', 'Production', 'proof');
INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key, product_type)
VALUES ('tx-paid-1', 'tx-paid-1', 0, 'cust-1001', 'com.example.pro', 'Production', 'purchase:tx-paid-1', 'non_consumable');
INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, finished_at, outcome_reason, apple_status, purchase_key)
VALUES ('c2VlZC1wYWlk', 'tx-paid-1', 'cust-1001', 'com.example.pro', 'granted', 1, now(), NULL, 0, 'purchase:tx-paid-1'),
       ('c2VlZC1mYWlsZWQ=', 'tx-failed-1', 'cust-2002', 'com.example.coins', 'failed', 10, now(),
        'gave up after 10 attempts; last error: HTTP 503', NULL, NULL),
       ('c2VlZC1xdWV1ZWQ=', 'tx-queued-1', 'cust-3003', 'com.example.coins', 'queued', 0, NULL, NULL, NULL, NULL);
UPDATE receiptq.grants SET job_id = (SELECT id FROM receiptq.jobs WHERE transaction_id = 'tx-paid-1') WHERE purchase_key = 'purchase:tx-paid-1';
INSERT INTO receiptq.worker_heartbeats (worker, host, pid, interval_ms) VALUES ('demo-worker-1', 'localhost', 4242, 3600000);
