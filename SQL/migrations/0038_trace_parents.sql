-- 0038: one purchase, one trace (issue 48). When tracing is on (`--otlp-endpoint`), the API
-- stores the W3C traceparent of the span that queued a job on the job; the worker's spans for it
-- (claim, each request to Apple, the verdict write) continue that trace, the event its verdict
-- appends keeps it (functions/append_job_events.sql), and the webhook delivery of that event
-- continues it again and sends it on (its traceparent header). NULL when tracing is off, for
-- jobs queued otherwise and for older rows. Never a key.

ALTER TABLE receiptq.jobs ADD COLUMN trace_parent text
    CHECK (trace_parent IS NULL OR trace_parent ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$');
ALTER TABLE receiptq.events ADD COLUMN trace_parent text
    CHECK (trace_parent IS NULL OR trace_parent ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$');

COMMENT ON COLUMN receiptq.jobs.trace_parent IS
    'The W3C traceparent (00-<trace id>-<span id>-<flags>) of the API span that queued the job, when tracing is on; the worker''s spans continue it.';
COMMENT ON COLUMN receiptq.events.trace_parent IS
    'The traceparent of the job whose verdict appended the event (receiptq.jobs.trace_parent); its webhook deliveries continue the trace.';

-- The workers name the column too when they queue the renewals Apple notifies (always NULL there).
GRANT INSERT (trace_parent) ON receiptq.jobs TO receiptq_api, receiptq_worker;
GRANT SELECT (trace_parent) ON receiptq.jobs TO receiptq_api, receiptq_scheduler, receiptq_readonly;
-- The worker appends events (append_job_events runs as its caller).
GRANT INSERT (trace_parent) ON receiptq.events TO receiptq_worker;
