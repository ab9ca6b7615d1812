-- Least privilege: one NOLOGIN group role per process, each granted exactly what that process
-- runs (read from every statement in Sources/ReceiptQueue, Sources/API and Sources/Worker), and
-- the NOTIFY queue's fill level in receiptq.queue_health.
--
-- Why: every process and the autoscaler used one role that owns the schema, so a compromised
-- API could INSERT INTO receiptq.grants, read every receipt, or drop tables. Now:
--
--   role                 used by                          may
--   receiptq_api         receiptq api, receiptq enqueue   insert receipts and orders; read jobs (never receipt_data),
--                                                         orders, grants, events; mark resubmit jobs superseded
--   receiptq_worker      receiptq worker (+ webhooks,     claim and end jobs (reads receipt_data), write the ledger
--                        server-api with a database)      (grants, orders), events and deliveries, rate budgets
--   receiptq_scheduler   receiptq scheduler               rescue, requeue, give up and prune jobs (never receipt_data),
--                                                         append events, rescue deliveries, prune events; read the
--                                                         health views it exports as metrics
--   receiptq_readonly    receiptq stats, dashboards,      the ops views, and the tables without jobs.receipt_data or
--                        KEDA                             webhook_endpoints.secrets
--   (the owner)          receiptq migrate, redrive,       everything: DDL stays with the role that migrates
--                        webhooks add/remove/list
--
-- Each process logs in with a login role of its own that is a member of its group
-- (`receiptq roles create-login --role worker --login receiptq_worker_a --password-file F`), so
-- PostgreSQL itself refuses what a process was never meant to do ("permission denied").
-- Nothing here is granted on a sequence: identity columns (jobs.id, events.sequence) draw their
-- values without a privilege on their sequence. Trigger functions need no EXECUTE grant (it is
-- checked when the trigger is created, not when it fires). Foreign-key checks and ON DELETE
-- CASCADE run as the table's owner.
--
-- A migration that adds a table, column or function grants it to the roles that need it, in the
-- same file: column grants do not extend to columns added later.
--
-- Roles are cluster-wide and this file runs once per database, possibly in many databases of one
-- cluster at once (tests migrate scratch databases in parallel), so each role is created only
-- when missing, and a concurrent creation elsewhere is not an error. The migrating role needs
-- CREATEROLE for that; without it, a DBA creates the four roles (NOLOGIN) first.

DO $$
DECLARE
    v_role text;
BEGIN
    FOREACH v_role IN ARRAY ARRAY['receiptq_api', 'receiptq_worker', 'receiptq_scheduler', 'receiptq_readonly'] LOOP
        CONTINUE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = v_role);
        BEGIN
            EXECUTE format('CREATE ROLE %I NOLOGIN', v_role);
        EXCEPTION
            -- Another database of this cluster created it meanwhile (unique_violation when both
            -- transactions were still open).
            WHEN duplicate_object OR unique_violation THEN NULL;
            WHEN insufficient_privilege THEN
                RAISE EXCEPTION 'role % does not exist and this role may not create it', v_role
                    USING HINT = 'migrate as a role with CREATEROLE, or have a DBA run: CREATE ROLE ' || v_role || ' NOLOGIN';
        END;
    END LOOP;
END $$;

COMMENT ON SCHEMA receiptq IS
    'ReceiptQueue: asynchronous verification of Apple In-App Purchase receipts. Roles: receiptq_api, receiptq_worker, receiptq_scheduler, receiptq_readonly (see migration 0011).';

-- ---------------------------------------------------------------------------------------------
-- queue_health: the existing columns unchanged, and how full PostgreSQL's NOTIFY queue is
-- (0 to 1). Workers, the API's long-polls and backends LISTEN; a listener stuck in a long
-- transaction holds the queue, and at 1 every NOTIFY — so every enqueue and every completion,
-- whose triggers notify — fails. Alert long before (Deploy/prometheus/receiptq-rules.yaml).
-- ---------------------------------------------------------------------------------------------
CREATE OR REPLACE VIEW receiptq.queue_health AS
    SELECT
        (SELECT now() - min(run_at) FROM receiptq.jobs
          WHERE state = 'queued' AND run_at <= now())                AS oldest_ready_age,   -- jobs_ready_idx, first entry
        (SELECT count(*) FROM receiptq.jobs
          WHERE state = 'queued' AND run_at <= now())                AS ready,
        (SELECT count(*) FROM receiptq.jobs WHERE state = 'verifying') AS verifying,
        (SELECT count(*) FROM receiptq.jobs
          WHERE state = 'verifying' AND locked_until < now())        AS expired_leases,     -- jobs_lease_idx
        (SELECT count(*) FROM receiptq.jobs
          WHERE state = 'queued' AND last_error IS NOT NULL)         AS retrying,
        o.finished_last_minute,
        o.finished_last_hour,
        o.failed_last_hour,
        o.rejected_last_hour,
        round(o.failed_last_hour::numeric / nullif(o.finished_last_hour, 0), 4) AS failure_rate_last_hour,
        pg_notification_queue_usage()                                AS notify_queue_usage
    FROM (SELECT sum(last_minute) AS finished_last_minute,
                 sum(last_hour) AS finished_last_hour,
                 sum(last_hour) FILTER (WHERE state = 'failed') AS failed_last_hour,
                 sum(last_hour) FILTER (WHERE state = 'rejected') AS rejected_last_hour
          FROM receiptq.outcomes) AS o;
COMMENT ON VIEW receiptq.queue_health IS
    'Oldest ready job age, expired leases, jobs retrying after an error, completions in the last minute/hour, share of jobs that ended failed (gave up) in the last hour, NOTIFY queue usage (0-1).';

-- ---------------------------------------------------------------------------------------------
-- Per-process logins: `receiptq roles create-login` calls this with a SCRAM verifier computed
-- by the client (libpq's PQencryptPasswordConn), so the password itself never reaches the
-- server or its statement log. Identifiers and literals are quoted by format(%I, %L) from
-- parameters: no SQL is ever built from strings. Refuses to touch a superuser, a role that
-- cannot log in (a group), the caller itself, or anything but the four groups. Executable by the
-- owner only; the caller needs CREATEROLE.
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION receiptq.create_login(p_login text, p_password text, p_role text) RETURNS text
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
DECLARE
    v_existing pg_roles%ROWTYPE;
BEGIN
    IF p_role IS NULL OR p_role NOT IN ('receiptq_api', 'receiptq_worker', 'receiptq_scheduler', 'receiptq_readonly') THEN
        RAISE EXCEPTION 'unknown receiptq role %', p_role USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_login IS NULL OR length(p_login) NOT BETWEEN 1 AND 63 THEN
        RAISE EXCEPTION 'a login name has 1 to 63 characters' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT * INTO v_existing FROM pg_roles WHERE rolname = p_login;
    IF NOT FOUND THEN
        IF p_password IS NULL THEN
            EXECUTE format('CREATE ROLE %I LOGIN IN ROLE %I', p_login, p_role);
        ELSE
            EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L IN ROLE %I', p_login, p_password, p_role);
        END IF;
        RETURN 'created';
    END IF;
    IF v_existing.rolsuper OR NOT v_existing.rolcanlogin OR p_login = session_user OR p_login = current_user THEN
        RAISE EXCEPTION 'role % exists and is not a receiptq login (superuser, group, or yourself)', p_login
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF p_password IS NOT NULL THEN
        EXECUTE format('ALTER ROLE %I WITH PASSWORD %L', p_login, p_password);
    END IF;
    IF NOT pg_has_role(p_login, p_role, 'MEMBER') THEN
        EXECUTE format('GRANT %I TO %I', p_role, p_login);
    END IF;
    RETURN 'updated';
END $$;
COMMENT ON FUNCTION receiptq.create_login(text, text, text) IS
    'Creates (or sets the password of) a login in one receiptq group role. Owner only; needs CREATEROLE.';

-- ---------------------------------------------------------------------------------------------
-- Functions: nobody but the owner by default; then what each process calls. receipt_digest is
-- called by the jobs.receipt_sha256 generated column whenever a row is written.
-- ---------------------------------------------------------------------------------------------
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA receiptq FROM PUBLIC;
GRANT EXECUTE ON FUNCTION receiptq.receipt_digest(text) TO receiptq_api, receiptq_worker, receiptq_scheduler;
GRANT EXECUTE ON FUNCTION receiptq.purchase_key(text, text, text, text, text, text) TO receiptq_worker;
GRANT EXECUTE ON FUNCTION receiptq.record_purchase(bigint, text, text, text, text, text, integer, timestamptz, timestamptz,
                                                   text, text, text, text) TO receiptq_worker;

GRANT USAGE ON SCHEMA receiptq TO receiptq_api, receiptq_worker, receiptq_scheduler, receiptq_readonly;
-- Readiness (/readyz: is every migration applied?) in every process, and for ops.
GRANT SELECT ON receiptq.schema_migrations TO receiptq_api, receiptq_worker, receiptq_scheduler, receiptq_readonly;

-- ---------------------------------------------------------------------------------------------
-- receiptq_api: EnqueueBatch, JobRecord.fetch, RegisterOrder, ListGrants, ListEvents.
-- Never receipt_data back (a compromised API cannot read receipts), never the ledger's writes.
-- ---------------------------------------------------------------------------------------------
GRANT SELECT (id, receipt_sha256, transaction_id, user_id, product_id, order_id, state, attempts, run_at, locked_by,
              locked_until, apple_status, apple_environment, last_error, outcome_reason, created_at, updated_at,
              finished_at, bounded_answers, redriven_at, purchase_key, superseded_by) ON receiptq.jobs TO receiptq_api;
GRANT INSERT (receipt_data, transaction_id, user_id, product_id, order_id) ON receiptq.jobs TO receiptq_api;
-- A new receipt for a transaction whose job ended resubmit supersedes that job (EnqueueBatch).
GRANT UPDATE (superseded_by, updated_at) ON receiptq.jobs TO receiptq_api;
GRANT SELECT ON receiptq.orders TO receiptq_api;
GRANT INSERT (order_id, user_id, product_id) ON receiptq.orders TO receiptq_api;
GRANT SELECT ON receiptq.grants, receiptq.events TO receiptq_api;

-- ---------------------------------------------------------------------------------------------
-- receiptq_worker: ClaimBatch, RecordOutcomes (CompleteBatch, receiptq.record_purchase,
-- AppendJobEvents), OutageNotice, the webhook deliverer (ListWebhookEndpoints, ClaimDeliveries,
-- RecordDeliveries) and the fleet's rate budget (Configure/Take/PauseRateBudget).
-- ---------------------------------------------------------------------------------------------
GRANT SELECT ON receiptq.jobs TO receiptq_worker;
GRANT UPDATE (state, attempts, bounded_answers, run_at, locked_by, locked_until, apple_status, apple_environment,
              last_error, outcome_reason, purchase_key, finished_at, updated_at) ON receiptq.jobs TO receiptq_worker;
GRANT SELECT, INSERT ON receiptq.grants TO receiptq_worker;
GRANT SELECT ON receiptq.orders, receiptq.products TO receiptq_worker;
GRANT UPDATE (state, fulfilled_at) ON receiptq.orders TO receiptq_worker;
GRANT SELECT ON receiptq.events TO receiptq_worker;
GRANT INSERT (type, user_id, job_id, purchase_key, body) ON receiptq.events TO receiptq_worker;
GRANT SELECT ON receiptq.webhook_endpoints TO receiptq_worker;
GRANT SELECT ON receiptq.deliveries TO receiptq_worker;
GRANT INSERT (endpoint_id, event_sequence, user_id) ON receiptq.deliveries TO receiptq_worker;
GRANT UPDATE (state, attempts, run_at, locked_by, locked_until, last_status, last_error, delivered_at)
    ON receiptq.deliveries TO receiptq_worker;
GRANT SELECT ON receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT (bundle_id, endpoint, environment, rate_per_second, capacity, tokens, refilled_at)
    ON receiptq.api_rate_budgets TO receiptq_worker;
GRANT UPDATE (rate_per_second, capacity, tokens, refilled_at, paused_until, granted_total, pauses_total)
    ON receiptq.api_rate_budgets TO receiptq_worker;

-- ---------------------------------------------------------------------------------------------
-- receiptq_scheduler: SchedulerLeadership, RescueExpiredLeases, RequeueTimedOut, AppendJobEvents,
-- RescueExpiredDeliveries, PruneEvents, PruneFinishedJobs. Never receipt_data, never secrets.
-- ---------------------------------------------------------------------------------------------
GRANT SELECT (id, receipt_sha256, transaction_id, user_id, product_id, order_id, state, attempts, run_at, locked_by,
              locked_until, apple_status, apple_environment, last_error, outcome_reason, created_at, updated_at,
              finished_at, bounded_answers, redriven_at, purchase_key, superseded_by) ON receiptq.jobs TO receiptq_scheduler;
GRANT UPDATE (state, finished_at, outcome_reason, run_at, locked_by, locked_until, last_error, updated_at)
    ON receiptq.jobs TO receiptq_scheduler;
GRANT DELETE ON receiptq.jobs TO receiptq_scheduler;
GRANT SELECT ON receiptq.grants TO receiptq_scheduler;
GRANT SELECT, DELETE ON receiptq.events TO receiptq_scheduler;
GRANT INSERT (type, user_id, job_id, purchase_key, body) ON receiptq.events TO receiptq_scheduler;
GRANT SELECT (id, event_types, enabled) ON receiptq.webhook_endpoints TO receiptq_scheduler;
GRANT SELECT ON receiptq.deliveries TO receiptq_scheduler;
GRANT INSERT (endpoint_id, event_sequence, user_id) ON receiptq.deliveries TO receiptq_scheduler;
GRANT UPDATE (state, run_at, locked_by, locked_until, last_error) ON receiptq.deliveries TO receiptq_scheduler;
-- ReadQueueHealth: the scheduler exports the queue's health as metrics (QueueHealthGauges).
GRANT SELECT ON receiptq.queue_depth, receiptq.queue_health, receiptq.outcomes, receiptq.webhook_health TO receiptq_scheduler;

-- ---------------------------------------------------------------------------------------------
-- receiptq_readonly: the ops views (they read as their owner) and the tables, without
-- jobs.receipt_data and webhook_endpoints.secrets. For `receiptq stats`, dashboards and KEDA.
-- ---------------------------------------------------------------------------------------------
GRANT SELECT ON receiptq.queue_depth, receiptq.queue_health, receiptq.outcomes, receiptq.failures, receiptq.flagged_grants,
                receiptq.webhook_health, receiptq.api_rate_budget_status TO receiptq_readonly;
GRANT SELECT (id, receipt_sha256, transaction_id, user_id, product_id, order_id, state, attempts, run_at, locked_by,
              locked_until, apple_status, apple_environment, last_error, outcome_reason, created_at, updated_at,
              finished_at, bounded_answers, redriven_at, purchase_key, superseded_by) ON receiptq.jobs TO receiptq_readonly;
GRANT SELECT ON receiptq.orders, receiptq.grants, receiptq.products, receiptq.events, receiptq.deliveries,
                receiptq.api_rate_budgets TO receiptq_readonly;
GRANT SELECT (id, url, event_types, enabled, created_at, updated_at) ON receiptq.webhook_endpoints TO receiptq_readonly;
