-- The console's browser journeys start from this (Deploy/console/browser_journeys.py), on a
-- fresh migrated database: a paid customer, a failed job to re-drive, a queued one, a worker's
-- heartbeat; 60 older failed jobs and 60 audit rows (two pages of each at 50 a page); and the
-- story of purchase tx-paid-1 for its timeline — submitted, granted, its event delivered to a
-- webhook endpoint, a notification from Apple applied.
-- The grant first: a granted job names its ledger row (purchase_key), as the worker writes it; and
-- before it, its original transaction's owner (grants_owner_fkey).
-- One transaction: one now(), so the moments the worker writes together (a verdict, its grant, its
-- event) are the same moment here too.
BEGIN;
INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ('tx-paid-1', 'cust-1001', 'Production', 'proof');
INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key, product_type)
VALUES ('tx-paid-1', 'tx-paid-1', 0, 'cust-1001', 'com.example.pro', 'Production', 'purchase:tx-paid-1', 'non_consumable');
INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, finished_at, outcome_reason, apple_status, purchase_key)
VALUES ('c2VlZC1wYWlk', 'tx-paid-1', 'cust-1001', 'com.example.pro', 'granted', 1, now() - interval '2 h', NULL, 0, 'purchase:tx-paid-1'),
       ('c2VlZC1mYWlsZWQ=', 'tx-failed-1', 'cust-2002', 'com.example.coins', 'failed', 10, now(),
        'gave up after 10 attempts; last error: HTTP 503', NULL, NULL),
       ('c2VlZC1xdWV1ZWQ=', 'tx-queued-1', 'cust-3003', 'com.example.coins', 'queued', 0, NULL, NULL, NULL, NULL);
UPDATE receiptq.grants SET job_id = (SELECT id FROM receiptq.jobs WHERE transaction_id = 'tx-paid-1') WHERE purchase_key = 'purchase:tx-paid-1';
INSERT INTO receiptq.worker_heartbeats (worker, host, pid, interval_ms) VALUES ('demo-worker-1', 'localhost', 4242, 3600000);

-- tx-paid-1's story, in the order the worker, the outbox and Apple wrote it: the job submitted 2 h
-- 5 s ago and granted 2 h ago (its grant, event and delivery in that same transaction, at the same
-- moment), the webhook delivered 3 s later, Apple's consumption request an hour later.
UPDATE receiptq.jobs SET created_at = now() - interval '2 h 5 s', updated_at = now() - interval '2 h' WHERE transaction_id = 'tx-paid-1';
UPDATE receiptq.grants SET granted_at = now() - interval '2 h' WHERE purchase_key = 'purchase:tx-paid-1';
INSERT INTO receiptq.webhook_endpoints (id, url, secrets) VALUES ('backend', 'https://backend.example/receiptq', '{whsec_c2VlZA==}');
INSERT INTO receiptq.events (type, user_id, job_id, purchase_key, body, created_at)
SELECT 'verdict.granted', 'cust-1001', id, 'purchase:tx-paid-1', '{}', now() - interval '2 h' FROM receiptq.jobs WHERE transaction_id = 'tx-paid-1';
UPDATE receiptq.deliveries SET state = 'delivered', attempts = 1, last_status = 200, created_at = now() - interval '2 h',
       delivered_at = now() - interval '1 h 59 min 57 s' WHERE user_id = 'cust-1001';
INSERT INTO receiptq.notifications (notification_uuid, notification_type, environment, signed_date, original_transaction_id, transaction_id,
                                    signed_payload, state, received_at, applied_at, outcome)
VALUES ('5eed0000-0000-4000-8000-000000000001', 'CONSUMPTION_REQUEST', 'Production', now() - interval '1 h', 'tx-paid-1', 'tx-paid-1',
        'seed', 'applied', now() - interval '1 h', now() - interval '59 min 59 s', 'consumption request recorded');
-- Two pages of failures (older than tx-failed-1, which stays first) and of audit rows.
INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, finished_at, outcome_reason, apple_status)
SELECT 'c2VlZA==', 'tx-old-failed-' || g, 'cust-5005', 'com.example.coins', CASE WHEN g % 10 = 0 THEN 'rejected' ELSE 'failed' END, 3,
       now() - g * interval '1 min', CASE WHEN g % 10 = 0 THEN 'invalid receipt' ELSE 'gave up after 3 attempts; last error: HTTP 503' END,
       CASE WHEN g % 10 = 0 THEN 21002 END
FROM generate_series(1, 60) g;
INSERT INTO receiptq.support_audit (actor, login, action, subject, why, at)
SELECT 'bob', 'receiptq_support', 'notifications.redrive', 'notification:seed-' || g, 'weekly clean-up ' || g, now() - interval '1 day' - g * interval '1 min'
FROM generate_series(1, 60) g;
-- A small subscription ledger for the revenue page (Production, prices in milliunits as Apple
-- signs them): cust-4004's monthly subscription renewed 10 days ago at 4.99 USD; cust-4005's
-- yearly one bought 3 days ago at 49.99 EUR (4.17 a month); cust-4006's monthly one bought a day
-- ago with no price in the ledger (price unknown). Active 3; new 2 and renewed 1 in the 30 days.
INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source)
VALUES ('tx-sub-1', 'cust-4004', 'Production', 'proof'), ('tx-sub-2', 'cust-4005', 'Production', 'proof'),
       ('tx-sub-3', 'cust-4006', 'Production', 'proof');
INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key, product_type,
                             price, currency, purchase_date, expires_date)
VALUES ('tx-sub-1', 'tx-sub-1', 0, 'cust-4004', 'com.example.monthly', 'Production', 'period:tx-sub-1', 'auto_renewable', 4990, 'USD',
        now() - interval '40 days', now() - interval '10 days'),
       ('tx-sub-1b', 'tx-sub-1', 0, 'cust-4004', 'com.example.monthly', 'Production', 'period:tx-sub-1b', 'auto_renewable', 4990, 'USD',
        now() - interval '10 days', now() + interval '20 days'),
       ('tx-sub-2', 'tx-sub-2', 0, 'cust-4005', 'com.example.yearly', 'Production', 'period:tx-sub-2', 'auto_renewable', 49990, 'EUR',
        now() - interval '3 days', now() + interval '362 days'),
       ('tx-sub-3', 'tx-sub-3', 0, 'cust-4006', 'com.example.monthly', 'Production', 'period:tx-sub-3', 'auto_renewable', NULL, NULL,
        now() - interval '1 day', now() + interval '29 days');
INSERT INTO receiptq.subscriptions (original_transaction_id, environment, user_id, product_id, state, expires_date, signed_at)
VALUES ('tx-sub-1', 'Production', 'cust-4004', 'com.example.monthly', 'active', now() + interval '20 days', now()),
       ('tx-sub-2', 'Production', 'cust-4005', 'com.example.yearly', 'active', now() + interval '362 days', now()),
       ('tx-sub-3', 'Production', 'cust-4006', 'com.example.monthly', 'active', now() + interval '29 days', now())
ON CONFLICT (original_transaction_id, environment) DO UPDATE SET product_id = excluded.product_id, state = excluded.state,
    expires_date = excluded.expires_date;
-- The last hour's calls out, as two workers sum them (migration 0040; latency counts per bucket of
-- CallTally.latencyBoundsMilliseconds, 23 of them, 1-based here): verifyReceipt at Apple's usual
-- 3–6 s with now and then a 15 s straggler; an outage 20–16 minutes ago (fast 503s, breakers open,
-- half-open 15 minutes ago); a few Server API lookups; webhook deliveries, whose receiver timed out
-- 34–30 minutes ago.
INSERT INTO receiptq.call_minutes (minute, target, process, calls, failures, latency_buckets, breaker)
SELECT date_trunc('minute', now()) - m * interval '1 minute', 'verify_receipt.production', w,
       CASE WHEN m BETWEEN 16 AND 20 THEN 3 ELSE 5 + (12 + m % 7) + (14 + m % 5) + (6 + m % 4) + m % 3 + (m % 13 = 0)::int END,
       CASE WHEN m BETWEEN 16 AND 20 THEN 3 ELSE (m % 13 = 0)::int END,
       CASE WHEN m BETWEEN 16 AND 20 THEN ARRAY[0,0,0,3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]::bigint[]
            ELSE ARRAY[0,0,0,0,0,0,0,0,0,0,0,0,0,0,5,12 + m % 7,14 + m % 5,6 + m % 4,m % 3,0,(m % 13 = 0)::int,0,0]::bigint[] END,
       CASE WHEN m BETWEEN 16 AND 20 THEN 'open' WHEN m = 15 THEN 'half-open' ELSE 'closed' END
FROM generate_series(0, 59) m, unnest(ARRAY['demo-worker-1', 'demo-worker-2']) w;
INSERT INTO receiptq.call_minutes (minute, target, process, calls, failures, latency_buckets, breaker)
SELECT date_trunc('minute', now()) - m * interval '1 minute', 'server_api.production', 'demo-worker-1', 2, 0,
       ARRAY[0,0,0,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0]::bigint[], 'closed'
FROM generate_series(0, 59, 5) m;
INSERT INTO receiptq.call_minutes (minute, target, process, calls, failures, latency_buckets, breaker)
SELECT date_trunc('minute', now()) - m * interval '1 minute', 'webhooks', 'demo-worker-1', 20 + m % 9, f,
       ARRAY[0,20 + m % 9 - f,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,f,0,0,0]::bigint[], 'closed'
FROM generate_series(0, 59) m, LATERAL (SELECT CASE WHEN m BETWEEN 30 AND 34 THEN 6 ELSE 0 END AS f) x;
COMMIT;
