-- ReceiptQueue schema: jobs (the queue), orders (registered by the backend), grants (the ledger).
-- Applied by `receiptq migrate` in one transaction under an advisory lock. Never edit an applied
-- migration: add a new numbered file instead (migrate refuses a changed checksum).

CREATE SCHEMA IF NOT EXISTS receiptq;
COMMENT ON SCHEMA receiptq IS 'ReceiptQueue: asynchronous verification of Apple In-App Purchase receipts.';

-- The dedupe digest of a receipt. Declared IMMUTABLE (convert_to is only STABLE because of
-- encodings) so a generated column can use it: receipts are base64, i.e. ASCII, whatever the
-- database encoding.
CREATE FUNCTION receiptq.receipt_digest(receipt text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN sha256(convert_to(receipt, 'UTF8'));

-- ---------------------------------------------------------------------------------------------
-- jobs: one verification request. High churn (every job is updated 2–3 times), so:
--   * fillfactor 80 leaves room on each page for the new row versions of updates;
--   * autovacuum runs after 1% of rows changed instead of 20%, and without cost throttling
--     delays, so dead versions from claims and completions are reclaimed before they pile up.
-- ---------------------------------------------------------------------------------------------
CREATE TABLE receiptq.jobs (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    receipt_data      text        NOT NULL,
    receipt_sha256    bytea       NOT NULL GENERATED ALWAYS AS (receiptq.receipt_digest(receipt_data)) STORED,
    transaction_id    text        NOT NULL,
    user_id           text        NOT NULL,
    product_id        text,
    order_id          text,
    state             text        NOT NULL DEFAULT 'queued',
    attempts          integer     NOT NULL DEFAULT 0,
    run_at            timestamptz NOT NULL DEFAULT now(),
    locked_by         text,
    locked_until      timestamptz,
    apple_status      integer,
    apple_environment text,
    last_error        text,
    outcome_reason    text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    finished_at       timestamptz,
    CONSTRAINT jobs_state_check CHECK (state IN
        ('queued', 'verifying', 'timed_out', 'granted', 'already_granted', 'rejected', 'failed')),
    CONSTRAINT jobs_lease_check CHECK ((state = 'verifying') = (locked_by IS NOT NULL AND locked_until IS NOT NULL)),
    CONSTRAINT jobs_finished_check CHECK (
        (state IN ('granted', 'already_granted', 'rejected', 'failed')) = (finished_at IS NOT NULL)),
    CONSTRAINT jobs_transaction_id_length CHECK (length(transaction_id) BETWEEN 1 AND 64),
    CONSTRAINT jobs_user_id_length CHECK (length(user_id) BETWEEN 1 AND 256)
) WITH (
    fillfactor = 80,
    autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_analyze_scale_factor = 0.02,
    autovacuum_vacuum_cost_delay = 0
);

COMMENT ON TABLE receiptq.jobs IS
    'One receipt verification request. States: queued -> verifying (leased) -> granted | already_granted | rejected | failed; timed_out goes back to queued via the scheduler.';
COMMENT ON COLUMN receiptq.jobs.receipt_data IS 'Base64 receipt as the app sent it (whitespace removed). Never log it.';
COMMENT ON COLUMN receiptq.jobs.receipt_sha256 IS 'Digest of receipt_data; with transaction_id the dedupe key of a submission.';
COMMENT ON COLUMN receiptq.jobs.transaction_id IS 'The StoreKit transaction the client asks to verify; must appear in the receipt.';
COMMENT ON COLUMN receiptq.jobs.user_id IS 'The backend''s user id; grants are delivered to this user.';
COMMENT ON COLUMN receiptq.jobs.product_id IS 'Product the client says it bought (checked against the receipt and the order).';
COMMENT ON COLUMN receiptq.jobs.order_id IS 'StoreKit applicationUsername (the backend''s order id); NULL when Apple dropped it.';
COMMENT ON COLUMN receiptq.jobs.state IS 'queued, verifying, timed_out (not terminal), granted, already_granted, rejected, failed (terminal).';
COMMENT ON COLUMN receiptq.jobs.attempts IS 'Claims so far; incremented by each claim, given back when a worker releases a job on shutdown.';
COMMENT ON COLUMN receiptq.jobs.run_at IS 'Earliest time the job may be claimed (queued) or requeued (timed_out).';
COMMENT ON COLUMN receiptq.jobs.locked_by IS 'Worker holding the lease while verifying (NULL otherwise).';
COMMENT ON COLUMN receiptq.jobs.locked_until IS 'Lease expiry; after it the scheduler puts the job back in the queue.';
COMMENT ON COLUMN receiptq.jobs.apple_status IS 'Last verifyReceipt status from Apple (or NULL: no JSON answer).';
COMMENT ON COLUMN receiptq.jobs.apple_environment IS 'Production or Sandbox: which environment answered last.';
COMMENT ON COLUMN receiptq.jobs.last_error IS 'Why the last attempt did not finish the job (timeout, HTTP 503, lease expired, ...).';
COMMENT ON COLUMN receiptq.jobs.outcome_reason IS 'Why the job ended as it did (e.g. the rejection reason).';
COMMENT ON COLUMN receiptq.jobs.finished_at IS 'When the job reached a terminal state.';

-- Dedupe: an identical submission (same receipt, same transaction) returns the existing job.
CREATE UNIQUE INDEX jobs_dedupe_idx ON receiptq.jobs (receipt_sha256, transaction_id);
-- Claim: ready jobs in run_at order. Partial, so it holds only the queue, never the millions of
-- finished rows; SKIP LOCKED scans it without blocking on rows other workers are taking.
CREATE INDEX jobs_ready_idx ON receiptq.jobs (run_at, id) WHERE state = 'queued';
-- Scheduler: expired leases.
CREATE INDEX jobs_lease_idx ON receiptq.jobs (locked_until) WHERE state = 'verifying';
-- Scheduler: timed-out verifications due for another try.
CREATE INDEX jobs_timed_out_idx ON receiptq.jobs (run_at) WHERE state = 'timed_out';
-- Ops throughput (completions per minute/hour) and pruning by age.
CREATE INDEX jobs_finished_idx ON receiptq.jobs (finished_at, state)
    WHERE state IN ('granted', 'already_granted', 'rejected', 'failed');
-- Order matching and "my receipts" lookups.
CREATE INDEX jobs_user_idx ON receiptq.jobs (user_id, created_at);

-- One NOTIFY per enqueue statement (one per batch), so idle workers wake at once.
CREATE FUNCTION receiptq.notify_jobs_enqueued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM inserted) THEN
        PERFORM pg_notify('receiptq_jobs', '');
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER jobs_notify_enqueued AFTER INSERT ON receiptq.jobs
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION receiptq.notify_jobs_enqueued();

-- One NOTIFY receiptq_results (payload: job id) per job reaching a terminal state, whatever
-- statement put it there: the API's long-poll and backends LISTEN on it.
CREATE FUNCTION receiptq.notify_jobs_finished() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('receiptq_results', n.id::text)
    FROM changed n JOIN before o ON o.id = n.id
    WHERE n.finished_at IS NOT NULL AND o.finished_at IS NULL;
    RETURN NULL;
END $$;
CREATE TRIGGER jobs_notify_finished AFTER UPDATE ON receiptq.jobs
    REFERENCING OLD TABLE AS before NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION receiptq.notify_jobs_finished();

-- ---------------------------------------------------------------------------------------------
-- orders: what the backend registered before the purchase (applicationUsername = order_id).
-- ---------------------------------------------------------------------------------------------
CREATE TABLE receiptq.orders (
    order_id    text        PRIMARY KEY,
    user_id     text        NOT NULL,
    product_id  text        NOT NULL,
    state       text        NOT NULL DEFAULT 'pending',
    created_at  timestamptz NOT NULL DEFAULT now(),
    fulfilled_at timestamptz,
    CONSTRAINT orders_state_check CHECK (state IN ('pending', 'fulfilled', 'cancelled'))
);
COMMENT ON TABLE receiptq.orders IS 'Orders the backend registered before a purchase; matched to grants by order id, else by the user''s oldest pending order for the product.';
COMMENT ON COLUMN receiptq.orders.state IS 'pending until a grant fulfils it; cancelled by the backend.';
-- Fallback matching: the user's oldest pending order for a product.
CREATE INDEX orders_pending_idx ON receiptq.orders (user_id, product_id, created_at) WHERE state = 'pending';

-- ---------------------------------------------------------------------------------------------
-- grants: the ledger. One row per Apple transaction ever granted; never pruned.
-- ---------------------------------------------------------------------------------------------
CREATE TABLE receiptq.grants (
    transaction_id          text        PRIMARY KEY,
    original_transaction_id text        NOT NULL,
    job_id                  bigint      NOT NULL,
    user_id                 text        NOT NULL,
    product_id              text        NOT NULL,
    quantity                integer     NOT NULL DEFAULT 1,
    purchase_date           timestamptz,
    environment             text        NOT NULL,
    order_id                text REFERENCES receiptq.orders (order_id),
    unmatched               boolean     NOT NULL DEFAULT false,
    granted_at              timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT grants_environment_check CHECK (environment IN ('Production', 'Sandbox'))
);
COMMENT ON TABLE receiptq.grants IS 'Ledger of granted Apple transactions: at most one row per transaction_id (the primary key), written in the same transaction that ends the job. Never pruned.';
COMMENT ON COLUMN receiptq.grants.job_id IS 'The job that granted it (no foreign key: jobs are pruned, grants are kept).';
COMMENT ON COLUMN receiptq.grants.unmatched IS 'No registered order matched: granted anyway (the user paid); for ops to reconcile.';
COMMENT ON COLUMN receiptq.grants.environment IS 'Production, or Sandbox (App Review and TestFlight purchases).';
CREATE INDEX grants_user_idx ON receiptq.grants (user_id, granted_at);
CREATE INDEX grants_original_idx ON receiptq.grants (original_transaction_id);
CREATE INDEX grants_unmatched_idx ON receiptq.grants (granted_at) WHERE unmatched;
