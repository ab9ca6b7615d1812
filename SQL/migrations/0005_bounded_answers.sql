-- Answers that may mean the receipt itself is bad (21002 "malformed or temporary", or a 211xx
-- marked not retryable) get a small budget before the job is rejected. That budget must count
-- those answers only: counting every attempt let outage attempts (refused connections, HTML
-- pages) use it up, so one transient 21002 after an outage rejected a paid receipt.
ALTER TABLE receiptq.jobs ADD COLUMN bounded_answers integer NOT NULL DEFAULT 0;
COMMENT ON COLUMN receiptq.jobs.bounded_answers IS
    'Apple answers so far that may mean a bad receipt (21002, or 211xx not retryable); the worker rejects after a few.';
