-- 0026: history sync (issue 26). One row per original transaction and environment: a walk of Apple's
-- Get Transaction History v2 for the customer who made it, importing each transaction into the one
-- ledger (as a signed-transaction job: record_purchase and its ownership rules, one grant per
-- purchase or period) and each subscription period into the model as a `history` fact. The walk's
-- revision is kept per page, so a re-run (a restore, a retry, a backfill resumed) asks Apple only
-- for what changed since. Queued by the API (POST /v1/users/{user_id}/history-syncs), by the first
-- grant of an auto-renewable original transaction (functions/queue_first_sighting_sync.sql) and by
-- `receiptq sync`. Its state machine is `HistorySyncLifecycle`.

CREATE TABLE receiptq.history_syncs (
    original_transaction_id text NOT NULL CHECK (length(original_transaction_id) BETWEEN 1 AND 64),
    environment text NOT NULL CHECK (environment IN ('Production', 'Sandbox')),
    user_id text CHECK (user_id IS NULL OR length(user_id) BETWEEN 1 AND 256),
    reason text NOT NULL CHECK (reason IN ('request', 'first_sighting', 'backfill')),
    state text NOT NULL DEFAULT 'queued',
    run_at timestamptz NOT NULL DEFAULT now(),
    locked_by text,
    locked_until timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    revision text CHECK (revision IS NULL OR length(revision) <= 1000),
    pages integer NOT NULL DEFAULT 0,
    transactions integer NOT NULL DEFAULT 0,
    requested_at timestamptz NOT NULL DEFAULT now(),
    synced_at timestamptz,
    last_error text CHECK (last_error IS NULL OR length(last_error) <= 1000),
    PRIMARY KEY (original_transaction_id, environment),
    CONSTRAINT history_syncs_state_check CHECK (state IN ('queued', 'syncing', 'synced', 'failed')),
    CONSTRAINT history_syncs_lease_check CHECK ((state = 'syncing') = (locked_by IS NOT NULL AND locked_until IS NOT NULL))
);

COMMENT ON TABLE receiptq.history_syncs IS
    'History syncs: Get Transaction History v2 walks per original transaction, resumable from revision (HistorySyncLifecycle).';
COMMENT ON COLUMN receiptq.history_syncs.user_id IS
    'The user a request named (restore); NULL: the owner the ledger knows for the original transaction.';
COMMENT ON COLUMN receiptq.history_syncs.revision IS
    'Apple''s revision after the last page imported: the next walk starts here and receives only what changed since.';

CREATE INDEX history_syncs_ready_idx ON receiptq.history_syncs (run_at) WHERE state = 'queued';
CREATE INDEX history_syncs_lease_idx ON receiptq.history_syncs (locked_until) WHERE state = 'syncing';

-- The API queues (and re-queues a finished sync); the worker claims, checkpoints and ends, and
-- queues first sightings from its grants (the trigger runs as the worker); the scheduler rescues
-- expired leases; ops read.
GRANT SELECT, INSERT ON receiptq.history_syncs TO receiptq_api, receiptq_worker;
GRANT UPDATE (state, run_at, user_id, reason, requested_at) ON receiptq.history_syncs TO receiptq_api;
GRANT UPDATE (state, run_at, locked_by, locked_until, attempts, revision, pages, transactions, synced_at, last_error)
    ON receiptq.history_syncs TO receiptq_worker;
GRANT SELECT, UPDATE (state, run_at, locked_by, locked_until, last_error) ON receiptq.history_syncs TO receiptq_scheduler;
GRANT SELECT ON receiptq.history_syncs TO receiptq_readonly;
