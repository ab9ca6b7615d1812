-- Ops re-drive failed jobs (receiptq redrive) once the cause is fixed, e.g. after an Apple outage
-- longer than the retry deadline. The retry budget's deadline must then count from the
-- re-drive, not from enqueue, or the first retry would give the job up again at once (the old
-- ops query reset only `attempts`). Nullable, so adding it rewrites nothing.
ALTER TABLE receiptq.jobs ADD COLUMN redriven_at timestamptz;
COMMENT ON COLUMN receiptq.jobs.redriven_at IS
    'Last time ops put this failed job back in the queue; the retry deadline counts from here (else from created_at).';
