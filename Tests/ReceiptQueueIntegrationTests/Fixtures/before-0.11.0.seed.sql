\set ON_ERROR_STOP 1
-- Orders: one pending, one fulfilled by its token.
INSERT INTO receiptq.orders (order_id, user_id, product_id, state, app_account_token, fulfilled_at) VALUES
    ('o-pending', 'alice', 'com.example.pro', 'pending', 'aaaaaaaa-0000-4000-8000-000000000001', NULL),
    ('o-bob', 'bob', 'com.example.monthly', 'fulfilled', 'bbbbbbbb-0000-4000-8000-000000000002', now() - interval '2 days');
-- The ledger as the old rule left it: one subscription's periods under three accounts.
INSERT INTO receiptq.grants (transaction_id, original_transaction_id, web_order_line_item_id, job_id, user_id, product_id, quantity,
                             purchase_date, expires_date, environment, order_id, unmatched, granted_at, purchase_key, product_type,
                             ownership_type, app_account_token) VALUES
    ('s-1', 's-1', 'w-1', 101, 'alice', 'com.example.monthly', 1, now() - interval '62 days', now() - interval '31 days', 'Production', NULL, true,
     now() - interval '62 days', 'period:w-1', 'auto_renewable', 'PURCHASED', NULL),
    ('s-2', 's-1', 'w-2', 102, 'mallory', 'com.example.monthly', 1, now() - interval '31 days', now() - interval '1 day', 'Production', NULL, true,
     now() - interval '5 days', 'period:w-2', 'auto_renewable', 'PURCHASED', NULL),
    ('s-3', 's-1', 'w-3', 103, 'eve', 'com.example.monthly', 1, now() - interval '1 day', now() + interval '29 days', 'Production', NULL, true,
     now() - interval '1 hour', 'period:w-3', 'auto_renewable', 'PURCHASED', NULL),
    ('b-1', 'b-1', 'w-9', 104, 'bob', 'com.example.monthly', 1, now() - interval '2 days', now() + interval '28 days', 'Production', 'o-bob', false,
     now() - interval '2 days', 'period:w-9', 'auto_renewable', 'PURCHASED', 'bbbbbbbb-0000-4000-8000-000000000002'),
    ('n-1', 'n-1', NULL, 105, 'alice', 'com.example.pro', 1, now() - interval '10 days', NULL, 'Production', NULL, true,
     now() - interval '10 days', 'purchase:n-1', 'non_consumable', 'PURCHASED', NULL),
    ('f-1', 'f-1', NULL, 106, 'carol', 'com.example.pro', 1, now() - interval '3 days', NULL, 'Production', NULL, true,
     now() - interval '3 days', 'family:purchase:f-1', 'non_consumable', 'FAMILY_SHARED', NULL),
    ('c-1', 'c-1', NULL, 107, 'alice', 'com.example.coins', 3, now() - interval '4 days', NULL, 'Sandbox', NULL, true,
     now() - interval '4 days', 'purchase:c-1', 'consumable', 'PURCHASED', NULL);
UPDATE receiptq.grants SET revoked_at = now() - interval '1 day', revocation_reason = 'refunded by Apple' WHERE purchase_key = 'purchase:c-1';
SELECT receiptq.support_grant('ops', 'outage goodwill', 'dave', 'com.example.pro', 'ticket-1', 'non_consumable');
-- The subscription's model row, under the account granted last.
INSERT INTO receiptq.subscriptions (original_transaction_id, environment, user_id, product_id, status, auto_renew_status, expires_date,
                                    signed_at, state, transaction_id) VALUES
    ('s-1', 'Production', 'eve', 'com.example.monthly', 1, 1, now() + interval '29 days', now() - interval '1 day', 'active', 's-3');
-- Jobs: the grants' jobs, one waiting for Apple, one given up, one verifying under an expired lease.
INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, finished_at, purchase_key, apple_status)
SELECT 'cmVjZWlwdC0' || g.transaction_id, g.transaction_id, g.user_id, g.product_id, 'granted', 1, g.granted_at, g.purchase_key, 0
FROM receiptq.grants g WHERE g.manual_by IS NULL ORDER BY g.granted_at;
INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, run_at) VALUES
    ('cmVjZWlwdC1wZW5kaW5n', 'p-1', 'frank', 'com.example.coins', 'queued', 2, now() + interval '5 minutes');
INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, finished_at, outcome_reason) VALUES
    ('cmVjZWlwdC1mYWlsZWQ=', 'x-1', 'grace', 'com.example.coins', 'failed', 10, now(), 'gave up after 10 attempts; last error: HTTP 503');
INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, locked_by, locked_until) VALUES
    ('cmVjZWlwdC1sZWFzZWQ=', 'l-1', 'heidi', 'com.example.coins', 'verifying', 1, 'worker-gone', now() - interval '1 minute');
INSERT INTO receiptq.receipt_submissions (receipt_sha256, transaction_id, user_id, job_id)
SELECT j.receipt_sha256, j.transaction_id, j.user_id, j.id FROM receiptq.jobs j;
UPDATE receiptq.grants g SET job_id = j.id FROM receiptq.jobs j WHERE j.purchase_key = g.purchase_key AND j.state = 'granted';
-- Apple's notifications: one applied, one waiting.
INSERT INTO receiptq.notifications (notification_uuid, notification_type, subtype, environment, signed_date, original_transaction_id,
                                    transaction_id, signed_payload, state, outcome, applied_at) VALUES
    ('11111111-1111-4111-8111-111111111111', 'DID_RENEW', NULL, 'Production', now() - interval '1 day', 's-1', 's-3', 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln',
     'applied', 'purchase s-3 queued for its user', now() - interval '1 day'),
    ('22222222-2222-4222-8222-222222222222', 'REFUND', NULL, 'Production', now() - interval '5 minutes', 'n-1', 'n-1', 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln',
     'queued', NULL, NULL);
-- A webhook endpoint, and the events of the grants with their deliveries.
INSERT INTO receiptq.webhook_endpoints (id, url, secrets) VALUES ('backend', 'https://backend.example/webhooks', ARRAY['whsec_ZmFrZS1zZWNyZXQtZm9yLWZpeHR1cmU=']);
SELECT receiptq.append_job_events(array_agg(id ORDER BY id)) FROM receiptq.jobs WHERE state = 'granted';
