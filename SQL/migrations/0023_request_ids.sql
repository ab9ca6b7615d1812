-- 0023: follow one purchase by its request id (issue 28).
-- The API answers every request with an X-Request-Id (the caller's, a W3C traceparent's trace id,
-- or a new one) and stores it on the job the request queued, so the worker's log lines about the
-- job, the event the job's verdict appends (body.request_id, functions/append_job_events.sql) and
-- the webhook delivery of that event (its X-Request-Id header) all carry it. A convenience for
-- tracing, never a key: repeats of a submission keep the first request's id.

ALTER TABLE receiptq.jobs ADD COLUMN request_id text
    CHECK (request_id IS NULL OR (length(request_id) BETWEEN 1 AND 128 AND request_id ~ '^[A-Za-z0-9._:/+=-]+$'));

COMMENT ON COLUMN receiptq.jobs.request_id IS
    'The X-Request-Id of the API request that queued the job (1-128 characters of A-Z a-z 0-9 . _ : / + = -); NULL for jobs queued otherwise (renewals, receiptq enqueue, older rows).';

-- The workers name the column too when they queue the renewals Apple notifies (always NULL there).
GRANT INSERT (request_id) ON receiptq.jobs TO receiptq_api, receiptq_worker;
GRANT SELECT (request_id) ON receiptq.jobs TO receiptq_api, receiptq_scheduler, receiptq_readonly;
