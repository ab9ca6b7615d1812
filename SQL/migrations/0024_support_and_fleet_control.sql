-- 0024: customer support and fleet control (issue 27).
--
-- * receiptq_support: the group role of the support listener's admin login and of `receiptq
--   support …`. It reads what ops read (receiptq_readonly's grants, by membership) and writes only
--   through this file's narrow paths: the audit log (insert only), the fleet's pause switch, the
--   job and queue re-drives and discards, and the ledger through three SECURITY DEFINER functions
--   (functions/support_*.sql) that write the grant, its event and its audit row in one statement.
-- * support_audit: who did what, when, why, with the row before and after. Append-only: a trigger
--   refuses UPDATE, DELETE and TRUNCATE for every role, the owner included.
-- * fleet_control: one row the workers read on every claim (`ClaimBatch`): paused, no job is claimed.
-- * worker_heartbeats: each worker's row, written every heartbeat interval; `live_workers` says
--   which are live (a beat within three intervals).
-- * grants.manual_by: the operator who granted a purchase by hand (NULL: granted from Apple's answer).

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'receiptq_support') THEN
        BEGIN
            CREATE ROLE receiptq_support NOLOGIN;
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN NULL;
            WHEN insufficient_privilege THEN
                RAISE EXCEPTION 'role receiptq_support does not exist and this role may not create it'
                    USING HINT = 'migrate as a role with CREATEROLE, or have a DBA run: CREATE ROLE receiptq_support NOLOGIN';
        END;
    END IF;
END $$;

-- Support reads everything ops read (never receipts nor webhook secrets): by membership, so a
-- view added for ops later is the support console's too.
GRANT receiptq_readonly TO receiptq_support;
GRANT USAGE ON SCHEMA receiptq TO receiptq_support;

COMMENT ON SCHEMA receiptq IS
    'ReceiptQueue: asynchronous verification of Apple In-App Purchase receipts. Roles: receiptq_api, receiptq_worker, receiptq_scheduler, receiptq_readonly (see migration 0011), receiptq_support (0024).';

-- ---------------------------------------------------------------------------------------------
-- The audit log.

CREATE TABLE receiptq.support_audit (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT now(),
    actor text NOT NULL CHECK (length(actor) BETWEEN 1 AND 200),
    login text NOT NULL DEFAULT session_user,
    action text NOT NULL CHECK (action ~ '^[a-z][a-z_.]{0,63}$'),
    subject text NOT NULL CHECK (length(subject) BETWEEN 1 AND 300),
    why text NOT NULL CHECK (length(btrim(why)) BETWEEN 1 AND 1000),
    before jsonb,
    after jsonb
);

CREATE INDEX support_audit_subject_idx ON receiptq.support_audit (subject, at);
CREATE INDEX support_audit_at_idx ON receiptq.support_audit (at);

COMMENT ON TABLE receiptq.support_audit IS
    'Every support write (API, console, CLI): who (actor: the operator''s credential name; login: the database login), when, what (action, subject), why, and the rows before and after. Append-only: support_audit_append_only refuses UPDATE, DELETE and TRUNCATE for every role, the owner included.';

-- Its append-only triggers: functions/refuse_audit_change.sql (the rule and where it applies, together).

GRANT SELECT ON receiptq.support_audit TO receiptq_readonly;
GRANT INSERT (actor, action, subject, why, before, after) ON receiptq.support_audit TO receiptq_support;

-- ---------------------------------------------------------------------------------------------
-- The fleet's pause switch.

CREATE TABLE receiptq.fleet_control (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    paused boolean NOT NULL DEFAULT false,
    changed_at timestamptz NOT NULL DEFAULT now(),
    changed_by text,
    reason text
);

INSERT INTO receiptq.fleet_control DEFAULT VALUES;

COMMENT ON TABLE receiptq.fleet_control IS
    'One row. paused: workers claim no job (ClaimBatch reads it on every claim); leases already held finish. Set by receiptq support pause / resume (audited).';

GRANT SELECT ON receiptq.fleet_control TO receiptq_worker, receiptq_readonly;
GRANT UPDATE (paused, changed_at, changed_by, reason) ON receiptq.fleet_control TO receiptq_support;

-- ---------------------------------------------------------------------------------------------
-- Live workers.

CREATE TABLE receiptq.worker_heartbeats (
    worker text PRIMARY KEY CHECK (length(worker) BETWEEN 1 AND 200),
    host text,
    pid integer,
    started_at timestamptz NOT NULL DEFAULT now(),
    beat_at timestamptz NOT NULL DEFAULT now(),
    interval_ms integer NOT NULL CHECK (interval_ms > 0)
);

COMMENT ON TABLE receiptq.worker_heartbeats IS
    'One row per worker process (its --name), written every interval_ms by the worker and deleted when it stops gracefully. live_workers says which are live.';

GRANT SELECT, INSERT, DELETE ON receiptq.worker_heartbeats TO receiptq_worker;
GRANT UPDATE (host, pid, started_at, beat_at, interval_ms) ON receiptq.worker_heartbeats TO receiptq_worker;
GRANT SELECT ON receiptq.worker_heartbeats TO receiptq_readonly;
-- The scheduler forgets workers that stopped beating long ago.
GRANT SELECT, DELETE ON receiptq.worker_heartbeats TO receiptq_scheduler;

-- ---------------------------------------------------------------------------------------------
-- Manual grants.

ALTER TABLE receiptq.grants ADD COLUMN manual_by text;

COMMENT ON COLUMN receiptq.grants.manual_by IS
    'The operator who granted it by hand (receiptq support grant; audited in support_audit). NULL: granted from Apple''s answer. A manual grant''s job_id is negative (manual_grant_ids) and names no job.';

CREATE SEQUENCE receiptq.manual_grant_ids;

COMMENT ON SEQUENCE receiptq.manual_grant_ids IS 'Manual grants take job_id = -nextval: never a job''s id.';

-- ---------------------------------------------------------------------------------------------
-- Re-drives and discards: the columns the lifecycle statements write (RedriveFailedJobs,
-- DiscardJobs, RedriveNotifications, RedriveFailedDeliveries), and the events a discard appends.

GRANT UPDATE (state, run_at, attempts, redriven_at, bounded_answers, finished_at, outcome_reason, last_error, updated_at)
    ON receiptq.jobs TO receiptq_support;
GRANT UPDATE (state, attempts, run_at, last_error, outcome) ON receiptq.notifications TO receiptq_support;
GRANT UPDATE (state, run_at, attempts, budget_from, last_error) ON receiptq.deliveries TO receiptq_support;

-- ---------------------------------------------------------------------------------------------
-- What the customer view and the console's search look up by (each was a sequential scan).
-- Jobs by transaction id, but not those verifying or granted: no update of a job is HOT, so an
-- index of every job's transaction id cost every claim and every verdict one more index entry
-- (17% of bench queue's drain). This one takes an entry when a job is queued (enqueue, retry,
-- redrive) or ends other than granted — the jobs support looks for; a granted job is reached
-- through its grant, and a verifying one is in flight for seconds (ConsoleQueries.searchJobs).
CREATE INDEX jobs_unsettled_transaction_idx ON receiptq.jobs (transaction_id) WHERE state NOT IN ('verifying', 'granted');

CREATE INDEX orders_user_idx ON receiptq.orders (user_id, created_at);
CREATE INDEX notifications_original_idx ON receiptq.notifications (original_transaction_id, received_at);
CREATE INDEX deliveries_user_idx ON receiptq.deliveries (user_id, created_at);
