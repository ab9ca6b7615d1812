-- A database as the last commit before release 0.11.0 left it (3ec5276, 2026-11-28: migrations
-- 0001–0034 and that commit's functions and views), with data of every kind an install holds:
-- orders, a ledger in which one subscription's periods were granted to three accounts (the hole
-- release 0.11.0 closes), a family member's grant, a refunded consumable, a manual grant, the
-- subscription's model row, jobs granted, waiting, given up and under an expired lease, Apple's
-- notifications applied and waiting, a webhook endpoint with its deliveries.
--
-- Made with: receiptq migrate --migrations <3ec5276's SQL/migrations>, psql -f
-- before-0.11.0.seed.sql (beside this file), then pg_dump --schema=receiptq --inserts --no-owner.
-- UpgradeTests loads it and migrates it with this binary. Keep it as it is: it is what an
-- operator upgrades from.

--
-- PostgreSQL database dump
--



SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: receiptq; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA receiptq;


--
-- Name: SCHEMA receiptq; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON SCHEMA receiptq IS 'ReceiptQueue: asynchronous verification of Apple In-App Purchase receipts. Roles: receiptq_api, receiptq_worker, receiptq_scheduler, receiptq_readonly (see migration 0011), receiptq_support (0024).';


--
-- Name: append_failed_job_events(bigint[]); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.append_failed_job_events(p_jobs bigint[]) RETURNS integer
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    -- finished_at = now(): only jobs this very transaction gave up (now() is the transaction's
    -- start), so a caller cannot replay events for anything else.
    SELECT receiptq.append_job_events(array_agg(j.id))
    FROM receiptq.jobs j
    WHERE j.id = ANY(p_jobs) AND j.state = 'failed' AND j.finished_at = now();
$$;


--
-- Name: FUNCTION append_failed_job_events(p_jobs bigint[]); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.append_failed_job_events(p_jobs bigint[]) IS 'The scheduler''s (and support''s discard''s) only way to append events: job.failed for jobs its own transaction gave up.';


--
-- Name: append_job_events(bigint[]); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.append_job_events(p_jobs bigint[]) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_appended integer;
BEGIN
    -- Serialises appends until commit, so events.sequence follows commit order (0009).
    PERFORM pg_advisory_xact_lock(1381061969, 3);
    INSERT INTO receiptq.events (type, user_id, job_id, purchase_key, body)
    SELECT CASE WHEN j.state = 'failed' THEN 'job.failed' ELSE 'verdict.' || v.verdict END,
           j.user_id, j.id, j.purchase_key,
           jsonb_strip_nulls(jsonb_build_object(
               'job_id', j.id, 'status_url', '/v1/receipts/' || j.id, 'state', j.state, 'verdict', v.verdict,
               'transaction_id', j.transaction_id, 'reason', j.outcome_reason, 'environment', j.apple_environment,
               'request_id', j.request_id,
               'purchase', CASE WHEN g.purchase_key IS NOT NULL AND g.user_id = j.user_id THEN jsonb_build_object(
                   'purchase_key', g.purchase_key, 'transaction_id', g.transaction_id,
                   'original_transaction_id', g.original_transaction_id, 'product_id', g.product_id,
                   'quantity', g.quantity, 'environment', g.environment, 'ownership_type', g.ownership_type,
                   'order_id', g.order_id, 'expires_at', g.expires_date, 'revoked_at', g.revoked_at) END))
    -- One primary-key probe per id, whatever the table's size: OFFSET 0 keeps the lateral
    -- subquery from being flattened into a join that PostgreSQL's default costs answer with a
    -- sequential scan and a hash of jobs below ~150,000 rows (each batch of 1,000 read all
    -- 50,000 jobs in `bench queue`).
    FROM (SELECT DISTINCT x.id FROM unnest(p_jobs) AS x(id)) AS x
    CROSS JOIN LATERAL (SELECT * FROM receiptq.jobs j WHERE j.id = x.id AND j.finished_at IS NOT NULL OFFSET 0) AS j  -- jobs_pkey
    LEFT JOIN receiptq.grants g ON g.purchase_key = j.purchase_key                  -- grants_pkey
    CROSS JOIN LATERAL (SELECT receiptq.verdict(j.state, j.id, j.user_id, g.user_id, g.job_id, g.revoked_at) AS verdict) AS v
    ORDER BY j.id;
    GET DIAGNOSTICS v_appended = ROW_COUNT;
    RETURN v_appended;
END $$;


--
-- Name: FUNCTION append_job_events(p_jobs bigint[]); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.append_job_events(p_jobs bigint[]) IS 'Appends one event per finished job of p_jobs (verdict.<verdict>, or job.failed), derived from the job and its ledger row. Run last in the transaction that finished them.';


--
-- Name: check_trusted_claim(); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.check_trusted_claim() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF NEW.trusted_claim
       AND NOT pg_catalog.pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE')
       AND NOT EXISTS (
           SELECT 1 FROM receiptq.trusted_claim_tokens t
           WHERE NEW.claim_proof IS NOT NULL
             AND t.digest = pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(NEW.claim_proof, 'UTF8')), 'hex')) THEN
        -- Not refused (one bad row would fail the API's whole group commit): queued as a plain
        -- claim, which grants only to the owner Apple's signed appAccountToken names.
        NEW.trusted_claim := false;
        RAISE WARNING 'job for user %: a trusted claim without a registered token was queued as a plain claim', NEW.user_id;
    END IF;
    NEW.claim_proof := NULL;
    RETURN NEW;
END $$;


--
-- Name: FUNCTION check_trusted_claim(); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.check_trusted_claim() IS 'Trigger of jobs_check_trusted_claim: keeps trusted_claim only when claim_proof hashes to a digest in receiptq.trusted_claim_tokens (or the owner inserts), and never stores claim_proof.';


--
-- Name: create_login(text, text, text); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.create_login(p_login text, p_password text, p_role text) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog'
    AS $$
DECLARE
    v_existing pg_roles%ROWTYPE;
BEGIN
    IF p_role IS NULL OR p_role NOT IN ('receiptq_api', 'receiptq_worker', 'receiptq_scheduler', 'receiptq_readonly', 'receiptq_support') THEN
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


--
-- Name: FUNCTION create_login(p_login text, p_password text, p_role text); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.create_login(p_login text, p_password text, p_role text) IS 'Creates (or sets the password of) a login in one receiptq group role. Owner only; needs CREATEROLE.';


--
-- Name: fan_out_events(); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.fan_out_events() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    INSERT INTO receiptq.deliveries (endpoint_id, event_sequence, user_id)
    SELECT w.id, a.sequence, a.user_id
    FROM appended a
    JOIN receiptq.webhook_endpoints w ON w.enabled
         AND (w.event_types IS NULL OR a.type = ANY(w.event_types) OR split_part(a.type, '.', 1) || '.*' = ANY(w.event_types))
    ORDER BY a.sequence;
    IF EXISTS (SELECT 1 FROM appended) THEN
        PERFORM pg_notify('receiptq_events', '');
    END IF;
    RETURN NULL;
END $$;


--
-- Name: guard_history_sync_owner(); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.guard_history_sync_owner() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- The schema's owner (an operator running `receiptq sync --user-id`) may vouch.
    IF pg_catalog.pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'history sync %: only the schema''s owner names the owner of a backfill', NEW.original_transaction_id
        USING ERRCODE = '42501', HINT = 'receiptq sync --user-id runs with the owner''s login (as migrate does); a restore asks with reason request';
END $$;


--
-- Name: FUNCTION guard_history_sync_owner(); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.guard_history_sync_owner() IS 'Trigger of history_syncs_guard_owner: a backfill naming a user (reason backfill, user_id set) makes that user the owner of the purchases in the history nobody owns yet, so only the schema''s owner may write one. Without it the API''s login, which queues restores, could vouch for a bare original transaction id (DESIGN: Ownership).';


--
-- Name: guard_job_state(); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.guard_job_state() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- The worker's write path ends jobs; it never re-opens or rewrites a verdict.
    IF OLD.state NOT IN ('granted', 'already_granted', 'rejected', 'owned_elsewhere', 'resubmit')
       AND pg_catalog.pg_has_role(current_user, 'receiptq_worker', 'MEMBER') THEN
        RETURN NULL;
    END IF;
    -- The schema's owner (an operator by hand, or a SECURITY DEFINER function of the schema) may.
    IF pg_catalog.pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RETURN NULL;
    END IF;
    IF OLD.state IN ('granted', 'already_granted', 'rejected', 'owned_elsewhere', 'resubmit') THEN
        RAISE EXCEPTION 'job %: % is a verdict, and a verdict never changes', OLD.id, OLD.state
            USING ERRCODE = '42501', HINT = 'only the schema''s owner may correct a verdict by hand';
    END IF;
    RAISE EXCEPTION 'job %: only a worker''s login ends a job %', OLD.id, NEW.state
        USING ERRCODE = '42501', HINT = 'the scheduler requeues or gives up (failed); verdicts come from the workers';
END $$;


--
-- Name: FUNCTION guard_job_state(); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.guard_job_state() IS 'Trigger of jobs_guard_state: a verdict state (granted, already_granted, rejected, owned_elsewhere, resubmit) is written only by a receiptq_worker login (or the owner), and once written never changes but by the owner. Without it the scheduler''s login, which may write state to requeue and give up, could end a payer''s job rejected.';


--
-- Name: notify_jobs_enqueued(); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.notify_jobs_enqueued() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM inserted) THEN
        PERFORM pg_notify('receiptq_jobs', '');
    END IF;
    RETURN NULL;
END $$;


--
-- Name: notify_jobs_finished(); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.notify_jobs_finished() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- One NOTIFY per 300 newly finished jobs, not one per job: the payload lists their ids,
    -- comma-separated (300 × at most 20 bytes stays under NOTIFY's 8,000-byte limit).
    -- "Newly finished" is read with NOT IN, which PostgreSQL runs as one hash of `before`
    -- whatever it estimates. A join of the two transition tables was planned once per session
    -- with their sizes unknown (estimated 1 row), cached as a nested loop, and then compared
    -- every finished row with every old row: 1000 × 1000 per batch, 450 of a 550 ms verdict
    -- write in bench queue.
    PERFORM pg_notify('receiptq_results', string_agg(f.id::text, ','))
    FROM (SELECT n.id, (row_number() OVER () - 1) / 300 AS chunk
          FROM changed n
          WHERE n.finished_at IS NOT NULL
            AND n.id NOT IN (SELECT o.id FROM before o WHERE o.finished_at IS NOT NULL)) f
    GROUP BY f.chunk;
    RETURN NULL;
END $$;


--
-- Name: notify_notifications_received(); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.notify_notifications_received() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM received) THEN
        PERFORM pg_notify('receiptq_notifications', '');
    END IF;
    RETURN NULL;
END $$;


--
-- Name: purchase_key(text, text, text, text, text); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.purchase_key(p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_product_type text, p_ownership_type text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN (p_ownership_type = 'FAMILY_SHARED'::text) THEN CASE WHEN (p_product_type = 'auto_renewable'::text) THEN ((('family:period:'::text || p_original_transaction_id) || ':'::text) || COALESCE(p_web_order_line_item_id, p_transaction_id)) ELSE ('family:purchase:'::text || p_original_transaction_id) END WHEN (p_product_type = 'auto_renewable'::text) THEN ('period:'::text || COALESCE(p_web_order_line_item_id, p_transaction_id)) WHEN (p_product_type = 'consumable'::text) THEN ('purchase:'::text || p_transaction_id) ELSE ('purchase:'::text || p_original_transaction_id) END;


--
-- Name: queue_first_sighting_sync(); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.queue_first_sighting_sync() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- Once per original transaction and environment: a sync already queued, running or done stays.
    INSERT INTO receiptq.history_syncs (original_transaction_id, environment, reason)
    VALUES (NEW.original_transaction_id, NEW.environment, 'first_sighting')
    ON CONFLICT (original_transaction_id, environment) DO NOTHING;
    RETURN NULL;
END $$;


--
-- Name: FUNCTION queue_first_sighting_sync(); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.queue_first_sighting_sync() IS 'Trigger of grants_first_sighting: the first grant of an auto-renewable original transaction queues its history sync (periods and refunds from before, or from a notification outage).';


--
-- Name: receipt_digest(text); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.receipt_digest(receipt text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN sha256(convert_to(receipt, 'UTF8'::name));


--
-- Name: record_purchase(bigint, text, text, text, text, text, integer, timestamp with time zone, timestamp with time zone, text, text, text, text, text, uuid, uuid, text, bigint, text, boolean, boolean); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.record_purchase(p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamp with time zone, p_expires_date timestamp with time zone, p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text, p_product_type text, p_app_account_token uuid, p_claimed_app_account_token uuid, p_storefront text, p_price bigint, p_currency text, p_proven boolean, p_require_token boolean, OUT result text, OUT purchase_key text, OUT matched_order_id text, OUT unmatched boolean, OUT reason text) RETURNS record
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_type text;
    v_existing receiptq.grants%ROWTYPE;
    v_token_order receiptq.orders%ROWTYPE;
    v_order receiptq.orders%ROWTYPE;
    v_order_mismatch boolean := false;
    v_family boolean := p_ownership_type = 'FAMILY_SHARED';
BEGIN
    SELECT type INTO v_type FROM receiptq.products WHERE product_id = p_product_id;            -- products_pkey
    v_type := coalesce(v_type, p_product_type, CASE WHEN p_expires_date IS NOT NULL THEN 'auto_renewable' END);
    purchase_key := receiptq.purchase_key(p_transaction_id, p_original_transaction_id, p_web_order_line_item_id, v_type,
                                          p_ownership_type);
    PERFORM pg_advisory_xact_lock(hashtextextended('receiptq.purchase:' || purchase_key, 0));

    SELECT * INTO v_existing FROM receiptq.grants g
    WHERE g.purchase_key = record_purchase.purchase_key;                                         -- grants_pkey
    IF NOT FOUND THEN
        SELECT * INTO v_existing FROM receiptq.grants g
        WHERE g.transaction_id = p_transaction_id AND g.purchase_key LIKE 'transaction:%'         -- grants_transaction_idx
        LIMIT 1;
    END IF;
    IF FOUND THEN
        purchase_key := v_existing.purchase_key;
        matched_order_id := v_existing.order_id;
        unmatched := v_existing.unmatched;
        IF v_existing.user_id = p_user_id THEN
            result := 'already_granted';
            reason := 'this purchase was granted before';
        ELSE
            result := 'owned_elsewhere';
            reason := 'this purchase belongs to another account';
        END IF;
        RETURN;
    END IF;

    IF NOT v_family AND p_app_account_token IS NOT NULL THEN
        SELECT * INTO v_token_order FROM receiptq.orders o
        WHERE o.app_account_token = p_app_account_token FOR UPDATE;                                 -- orders_app_account_token_idx
        IF FOUND AND v_token_order.user_id <> p_user_id THEN
            result := 'owned_elsewhere';
            purchase_key := NULL;   -- not granted yet: the owner's own submission writes the row
            reason := 'Apple''s appAccountToken names an order of another account';
            RETURN;
        END IF;
    END IF;

    IF v_token_order.order_id IS NULL THEN
        IF p_require_token AND NOT v_family THEN
            result := 'token_required';
            purchase_key := NULL;
            reason := 'no appAccountToken Apple signed names one of our orders, and this app requires one (--require-app-account-token): '
                || 'held for review, never granted to whoever submits it';
            RETURN;
        END IF;
        IF NOT p_proven THEN
            result := 'unproven';
            purchase_key := NULL;
            reason := 'a transaction id alone does not prove who paid: submit the receipt or the signed transaction';
            RETURN;
        END IF;
    END IF;

    -- The order it fulfils (a family member's access never fulfils one).
    IF NOT v_family THEN
        IF v_token_order.order_id IS NOT NULL THEN
            IF v_token_order.product_id <> p_product_id THEN
                v_order_mismatch := true;
            ELSIF v_token_order.state = 'pending' THEN
                v_order := v_token_order;
            END IF;
        END IF;
        IF v_order.order_id IS NULL AND p_claimed_app_account_token IS NOT NULL
           AND p_claimed_app_account_token IS DISTINCT FROM p_app_account_token THEN
            SELECT * INTO v_order FROM receiptq.orders o                                             -- orders_app_account_token_idx
            WHERE o.app_account_token = p_claimed_app_account_token AND o.user_id = p_user_id AND o.state = 'pending'
              AND o.product_id = p_product_id
            FOR UPDATE;
        END IF;
        IF v_order.order_id IS NULL AND p_order_id IS NOT NULL THEN
            SELECT * INTO v_order FROM receiptq.orders o WHERE o.order_id = p_order_id FOR UPDATE;  -- orders_pkey
            IF FOUND AND v_order.product_id <> p_product_id THEN
                v_order_mismatch := true;
                v_order := NULL;
            ELSIF FOUND AND (v_order.state <> 'pending' OR v_order.user_id <> p_user_id) THEN
                v_order := NULL;   -- spent or someone else's: fall back to the user's own pending orders
            END IF;
        END IF;
        IF v_order.order_id IS NULL THEN
            -- Apple sometimes drops applicationUsername: the user's oldest pending order for the product.
            SELECT * INTO v_order FROM receiptq.orders o                                             -- orders_pending_idx
            WHERE o.user_id = p_user_id AND o.product_id = p_product_id AND o.state = 'pending'
            ORDER BY o.created_at, o.order_id
            LIMIT 1
            FOR UPDATE SKIP LOCKED;
        END IF;
    END IF;

    INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, quantity,
                                 purchase_date, environment, order_id, unmatched, purchase_key, product_type,
                                 ownership_type, web_order_line_item_id, expires_date, claimed_product_id, order_mismatch,
                                 app_account_token, storefront, price, currency)
    VALUES (p_transaction_id, p_original_transaction_id, p_job_id, p_user_id, p_product_id, p_quantity,
            p_purchase_date, p_environment, v_order.order_id, v_order.order_id IS NULL, purchase_key, v_type,
            p_ownership_type, p_web_order_line_item_id, p_expires_date,
            CASE WHEN p_claimed_product_id <> p_product_id THEN p_claimed_product_id END, v_order_mismatch,
            coalesce(p_app_account_token, v_order.app_account_token), p_storefront, p_price, p_currency);

    IF v_order.order_id IS NOT NULL THEN
        UPDATE receiptq.orders SET state = 'fulfilled', fulfilled_at = now() WHERE order_id = v_order.order_id;
    END IF;

    result := 'granted';
    matched_order_id := v_order.order_id;
    unmatched := v_order.order_id IS NULL;
END $$;


--
-- Name: FUNCTION record_purchase(p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamp with time zone, p_expires_date timestamp with time zone, p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text, p_product_type text, p_app_account_token uuid, p_claimed_app_account_token uuid, p_storefront text, p_price bigint, p_currency text, p_proven boolean, p_require_token boolean, OUT result text, OUT purchase_key text, OUT matched_order_id text, OUT unmatched boolean, OUT reason text); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.record_purchase(p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamp with time zone, p_expires_date timestamp with time zone, p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text, p_product_type text, p_app_account_token uuid, p_claimed_app_account_token uuid, p_storefront text, p_price bigint, p_currency text, p_proven boolean, p_require_token boolean, OUT result text, OUT purchase_key text, OUT matched_order_id text, OUT unmatched boolean, OUT reason text) IS 'Ledger write for one verified transaction, one row per purchase, with its owner: granted | already_granted | owned_elsewhere | unproven (a bare claim) | token_required (policy).';


--
-- Name: refuse_audit_change(); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.refuse_audit_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION 'receiptq.support_audit is append-only: % refused', TG_OP
        USING ERRCODE = '42501', HINT = 'the audit log is never changed; add a row that says what was wrong';
END $$;


--
-- Name: FUNCTION refuse_audit_change(); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.refuse_audit_change() IS 'Trigger of support_audit_append_only and support_audit_no_truncate: the audit log is append-only for every role, the owner included.';


--
-- Name: schedule_reconciliation(); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.schedule_reconciliation() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- "Recently changed" comes first: a new subscription, or a change a notification made, is checked
    -- against Apple's status within the hour (a notification seen is the one most likely to have a
    -- lost sibling); a status check or history sync schedules itself (ReconciliationSchedule).
    IF TG_OP = 'INSERT' THEN
        NEW.reconcile_at := least(coalesce(NEW.reconcile_at, 'infinity'::timestamptz), now() + interval '1 hour');
    ELSIF NEW.model IS DISTINCT FROM OLD.model AND NEW.last_source LIKE 'notification:%' THEN
        NEW.reconcile_at := least(coalesce(NEW.reconcile_at, 'infinity'::timestamptz), now() + interval '1 hour');
    END IF;
    RETURN NEW;
END $$;


--
-- Name: FUNCTION schedule_reconciliation(); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.schedule_reconciliation() IS 'Trigger of subscriptions_schedule_reconciliation: a new subscription, or one a notification changed, is due for a status check within the hour.';


--
-- Name: support_grant(text, text, text, text, text, text); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text, p_product_type text) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    v_key text := 'manual:' || p_reference;
    v_row receiptq.grants%ROWTYPE;
    v_data jsonb;
    v_audit bigint;
BEGIN
    IF p_reference IS NULL OR p_reference !~ '^[A-Za-z0-9._:-]{1,64}$' THEN
        RAISE EXCEPTION 'a manual grant''s reference has 1 to 64 letters, digits, . _ : -' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_user_id IS NULL OR length(p_user_id) NOT BETWEEN 1 AND 256 OR p_product_id IS NULL OR length(p_product_id) NOT BETWEEN 1 AND 200 THEN
        RAISE EXCEPTION 'a manual grant names a user (1-256 characters) and a product (1-200)' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key,
                                 product_type, manual_by)
    VALUES (v_key, v_key, -nextval('receiptq.manual_grant_ids'), p_user_id, p_product_id, 'Production', v_key, p_product_type, p_actor)
    ON CONFLICT (purchase_key) DO NOTHING                                                   -- grants_pkey
    RETURNING * INTO v_row;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'manual grant % exists: choose another reference', p_reference USING ERRCODE = 'unique_violation';
    END IF;
    v_data := jsonb_build_object('purchase_key', v_row.purchase_key, 'transaction_id', v_row.transaction_id,
                                 'original_transaction_id', v_row.original_transaction_id, 'product_id', v_row.product_id,
                                 'product_type', v_row.product_type, 'quantity', v_row.quantity, 'environment', v_row.environment,
                                 'manual', true, 'reason', p_why);
    INSERT INTO receiptq.support_audit (actor, action, subject, why, before, after)
    VALUES (p_actor, 'grant.manual', 'user:' || p_user_id, p_why, NULL, to_jsonb(v_row))
    RETURNING id INTO v_audit;
    PERFORM pg_advisory_xact_lock(1380013393, 3);   -- AppendJobEvents.lockKey: events in commit order
    INSERT INTO receiptq.events (type, user_id, purchase_key, body) VALUES ('grant.granted_manually', p_user_id, v_key, v_data);
    RETURN v_audit;
END $_$;


--
-- Name: FUNCTION support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text, p_product_type text); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text, p_product_type text) IS 'Support''s manual grant: ledger row (manual_by), grant.granted_manually event and audit row at once; returns the audit row''s id.';


--
-- Name: support_revoke(text, text, text); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.support_revoke(p_actor text, p_why text, p_purchase_key text) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_before receiptq.grants%ROWTYPE;
    v_after receiptq.grants%ROWTYPE;
    v_audit bigint;
BEGIN
    SELECT * INTO v_before FROM receiptq.grants WHERE purchase_key = p_purchase_key FOR UPDATE;   -- grants_pkey
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no grant %', p_purchase_key USING ERRCODE = 'no_data_found';
    END IF;
    IF v_before.revoked_at IS NOT NULL THEN
        RAISE EXCEPTION 'grant % was revoked at %', p_purchase_key, v_before.revoked_at USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    UPDATE receiptq.grants SET revoked_at = now(), revocation_reason = 'manual: ' || p_why
    WHERE purchase_key = p_purchase_key
    RETURNING * INTO v_after;
    INSERT INTO receiptq.support_audit (actor, action, subject, why, before, after)
    VALUES (p_actor, 'grant.revoke', 'user:' || v_after.user_id, p_why, to_jsonb(v_before), to_jsonb(v_after))
    RETURNING id INTO v_audit;
    PERFORM pg_advisory_xact_lock(1380013393, 3);   -- AppendJobEvents.lockKey: events in commit order
    INSERT INTO receiptq.events (type, user_id, purchase_key, body)
    VALUES ('grant.revoked', v_after.user_id, v_after.purchase_key,
            jsonb_build_object('purchase_key', v_after.purchase_key, 'transaction_id', v_after.transaction_id,
                               'original_transaction_id', v_after.original_transaction_id, 'product_id', v_after.product_id,
                               'quantity', v_after.quantity, 'environment', v_after.environment,
                               'ownership_type', v_after.ownership_type, 'order_id', v_after.order_id,
                               'revoked_at', v_after.revoked_at, 'reason', v_after.revocation_reason, 'manual', true));
    RETURN v_audit;
END $$;


--
-- Name: FUNCTION support_revoke(p_actor text, p_why text, p_purchase_key text); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.support_revoke(p_actor text, p_why text, p_purchase_key text) IS 'Support''s manual revocation: revoked_at and reason, grant.revoked event (manual) and audit row at once; returns the audit row''s id.';


--
-- Name: support_transfer(text, text, text, text); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.support_transfer(p_actor text, p_why text, p_original_transaction_id text, p_to_user text) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_before jsonb;
    v_after jsonb;
    v_from text;
    v_audit bigint;
    v_users integer;
BEGIN
    IF p_to_user IS NULL OR length(p_to_user) NOT BETWEEN 1 AND 256 THEN
        RAISE EXCEPTION 'the account to transfer to has 1 to 256 characters' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM 1 FROM receiptq.grants WHERE original_transaction_id = p_original_transaction_id FOR UPDATE;   -- grants_original_idx
    SELECT jsonb_agg(to_jsonb(g) ORDER BY g.purchase_key), min(g.user_id), count(DISTINCT g.user_id)
    INTO v_before, v_from, v_users
    FROM receiptq.grants g WHERE g.original_transaction_id = p_original_transaction_id;
    IF v_before IS NULL THEN
        RAISE EXCEPTION 'no grant of original transaction %', p_original_transaction_id USING ERRCODE = 'no_data_found';
    END IF;
    IF v_users > 1 OR EXISTS (SELECT 1 FROM receiptq.grants WHERE original_transaction_id = p_original_transaction_id
                                AND (ownership_type <> 'PURCHASED' OR revoked_at IS NOT NULL OR manual_by IS NOT NULL)) THEN
        RAISE EXCEPTION 'original transaction % cannot be transferred: family-shared, revoked, manual, or held by several accounts',
            p_original_transaction_id USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF v_from = p_to_user THEN
        RAISE EXCEPTION 'original transaction % is % already', p_original_transaction_id, p_to_user USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE receiptq.grants SET user_id = p_to_user WHERE original_transaction_id = p_original_transaction_id;
    UPDATE receiptq.subscriptions SET user_id = p_to_user, updated_at = now() WHERE original_transaction_id = p_original_transaction_id;
    SELECT jsonb_agg(to_jsonb(g) ORDER BY g.purchase_key) INTO v_after
    FROM receiptq.grants g WHERE g.original_transaction_id = p_original_transaction_id;
    INSERT INTO receiptq.support_audit (actor, action, subject, why, before, after)
    VALUES (p_actor, 'purchase.transfer', 'original_transaction:' || p_original_transaction_id, p_why,
            jsonb_build_object('user_id', v_from, 'grants', v_before), jsonb_build_object('user_id', p_to_user, 'grants', v_after))
    RETURNING id INTO v_audit;
    PERFORM pg_advisory_xact_lock(1380013393, 3);   -- AppendJobEvents.lockKey: events in commit order
    INSERT INTO receiptq.events (type, user_id, purchase_key, body)
    SELECT 'grant.transferred', u.user_id, NULL,
           jsonb_build_object('original_transaction_id', p_original_transaction_id, 'direction', u.direction,
                              'from_user_id', v_from, 'to_user_id', p_to_user, 'reason', p_why,
                              'purchase_keys', (SELECT jsonb_agg(e->>'purchase_key') FROM jsonb_array_elements(v_after) e))
    FROM (VALUES (v_from, 'out', 1), (p_to_user, 'in', 2)) AS u(user_id, direction, ord)
    ORDER BY u.ord;
    RETURN v_audit;
END $$;


--
-- Name: FUNCTION support_transfer(p_actor text, p_why text, p_original_transaction_id text, p_to_user text); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.support_transfer(p_actor text, p_why text, p_original_transaction_id text, p_to_user text) IS 'Support''s transfer of a purchase between app accounts (every grant of the original transaction and its subscription rows), grant.transferred events to both accounts and the audit row at once; returns the audit row''s id.';


--
-- Name: verdict(text, bigint, text, text, bigint, timestamp with time zone); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN (p_state = 'owned_elsewhere'::text) THEN 'owned_by_another_user'::text WHEN (p_state = ANY (ARRAY['granted'::text, 'already_granted'::text])) THEN CASE WHEN (p_grant_user_id IS NULL) THEN 'pending'::text WHEN (p_grant_user_id <> p_user_id) THEN 'owned_by_another_user'::text WHEN (p_revoked_at IS NOT NULL) THEN 'revoked'::text WHEN (p_grant_job_id = p_job_id) THEN 'delivered'::text ELSE 'already_delivered'::text END WHEN (p_state = 'rejected'::text) THEN 'not_paid'::text WHEN (p_state = 'resubmit'::text) THEN 'resubmit'::text ELSE 'pending'::text END;


--
-- Name: FUNCTION verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) IS 'The verdict a job reads, from its state and its ledger row: delivered (this job created the submitter''s grant), already_delivered, owned_by_another_user, revoked, not_paid, resubmit, pending.';


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: api_rate_budgets; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.api_rate_budgets (
    bundle_id text NOT NULL,
    endpoint text NOT NULL,
    environment text NOT NULL,
    rate_per_second double precision NOT NULL,
    capacity double precision NOT NULL,
    tokens double precision NOT NULL,
    refilled_at timestamp with time zone NOT NULL,
    paused_until timestamp with time zone,
    granted_total bigint DEFAULT 0 NOT NULL,
    pauses_total bigint DEFAULT 0 NOT NULL,
    CONSTRAINT api_rate_budgets_capacity_check CHECK ((capacity >= (1)::double precision)),
    CONSTRAINT api_rate_budgets_environment_check CHECK ((environment = ANY (ARRAY['Production'::text, 'Sandbox'::text]))),
    CONSTRAINT api_rate_budgets_rate_per_second_check CHECK ((rate_per_second > (0)::double precision))
)
WITH (fillfactor='50', autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='10000');


--
-- Name: TABLE api_rate_budgets; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.api_rate_budgets IS 'Token bucket per (app, App Store Server API endpoint, environment), shared by every worker; paused_until honours Apple''s Retry-After fleet-wide.';


--
-- Name: api_rate_budget_status; Type: VIEW; Schema: receiptq; Owner: -
--

CREATE VIEW receiptq.api_rate_budget_status AS
 SELECT api_rate_budgets.bundle_id,
    api_rate_budgets.endpoint,
    api_rate_budgets.environment,
    api_rate_budgets.rate_per_second,
    api_rate_budgets.capacity,
    round((LEAST(api_rate_budgets.capacity, (api_rate_budgets.tokens + (api_rate_budgets.rate_per_second * GREATEST((0)::double precision, (EXTRACT(epoch FROM (clock_timestamp() - api_rate_budgets.refilled_at)))::double precision)))))::numeric, 2) AS tokens_now,
    (api_rate_budgets.paused_until > clock_timestamp()) AS paused,
    api_rate_budgets.paused_until,
    api_rate_budgets.granted_total,
    api_rate_budgets.pauses_total
   FROM receiptq.api_rate_budgets
  ORDER BY api_rate_budgets.bundle_id, api_rate_budgets.endpoint, api_rate_budgets.environment;


--
-- Name: VIEW api_rate_budget_status; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON VIEW receiptq.api_rate_budget_status IS 'App Store Server API budgets now: tokens available, whether Apple paused the endpoint (429), totals granted and paused.';


--
-- Name: jobs; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.jobs (
    id bigint NOT NULL,
    receipt_data text,
    receipt_sha256 bytea GENERATED ALWAYS AS (receiptq.receipt_digest(receipt_data)) STORED,
    transaction_id text NOT NULL,
    user_id text NOT NULL,
    product_id text,
    order_id text,
    state text DEFAULT 'queued'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    locked_by text,
    locked_until timestamp with time zone,
    apple_status integer,
    apple_environment text,
    last_error text,
    outcome_reason text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    bounded_answers integer DEFAULT 0 NOT NULL,
    redriven_at timestamp with time zone,
    purchase_key text,
    superseded_by bigint,
    kind text DEFAULT 'receipt'::text NOT NULL,
    signed_transaction text,
    app_account_token uuid,
    trusted_claim boolean DEFAULT false NOT NULL,
    claim_proof text,
    request_id text,
    CONSTRAINT jobs_finished_check CHECK (((state = ANY (ARRAY['granted'::text, 'already_granted'::text, 'rejected'::text, 'failed'::text, 'resubmit'::text, 'owned_elsewhere'::text])) = (finished_at IS NOT NULL))),
    CONSTRAINT jobs_kind_check CHECK ((kind = ANY (ARRAY['receipt'::text, 'signed_transaction'::text, 'transaction_id'::text]))),
    CONSTRAINT jobs_lease_check CHECK (((state = 'verifying'::text) = ((locked_by IS NOT NULL) AND (locked_until IS NOT NULL)))),
    CONSTRAINT jobs_payload_check CHECK ((((kind = 'receipt'::text) = (receipt_data IS NOT NULL)) AND ((kind = 'signed_transaction'::text) = (signed_transaction IS NOT NULL)))),
    CONSTRAINT jobs_request_id_check CHECK (((request_id IS NULL) OR (((length(request_id) >= 1) AND (length(request_id) <= 128)) AND (request_id ~ '^[A-Za-z0-9._:/+=-]+$'::text)))),
    CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'verifying'::text, 'timed_out'::text, 'granted'::text, 'already_granted'::text, 'rejected'::text, 'failed'::text, 'resubmit'::text, 'owned_elsewhere'::text]))),
    CONSTRAINT jobs_transaction_id_length CHECK (((length(transaction_id) >= 1) AND (length(transaction_id) <= 64))),
    CONSTRAINT jobs_user_id_length CHECK (((length(user_id) >= 1) AND (length(user_id) <= 256)))
)
WITH (fillfactor='80', autovacuum_vacuum_scale_factor='0.01', autovacuum_analyze_scale_factor='0.02', autovacuum_vacuum_cost_delay='0');
ALTER TABLE ONLY receiptq.jobs ALTER COLUMN receipt_data SET STORAGE EXTERNAL;
ALTER TABLE ONLY receiptq.jobs ALTER COLUMN signed_transaction SET STORAGE EXTERNAL;


--
-- Name: TABLE jobs; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.jobs IS 'One receipt verification request. States: queued -> verifying (leased) -> granted | already_granted | rejected | failed; timed_out goes back to queued via the scheduler.';


--
-- Name: COLUMN jobs.receipt_data; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.receipt_data IS 'Base64 receipt as the app sent it (whitespace removed). Never log it.';


--
-- Name: COLUMN jobs.receipt_sha256; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.receipt_sha256 IS 'Digest of receipt_data; with transaction_id the dedupe key of a submission.';


--
-- Name: COLUMN jobs.transaction_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.transaction_id IS 'The StoreKit transaction the client asks to verify; must appear in the receipt.';


--
-- Name: COLUMN jobs.user_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.user_id IS 'The backend''s user id; grants are delivered to this user.';


--
-- Name: COLUMN jobs.product_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.product_id IS 'Product the client says it bought (checked against the receipt and the order).';


--
-- Name: COLUMN jobs.order_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.order_id IS 'StoreKit applicationUsername (the backend''s order id); NULL when Apple dropped it.';


--
-- Name: COLUMN jobs.state; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.state IS 'queued, verifying, timed_out (not terminal); granted, already_granted, rejected, failed, resubmit, owned_elsewhere (terminal).';


--
-- Name: COLUMN jobs.attempts; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.attempts IS 'Claims so far; incremented by each claim, given back when a worker releases a job on shutdown.';


--
-- Name: COLUMN jobs.run_at; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.run_at IS 'Earliest time the job may be claimed (queued) or requeued (timed_out).';


--
-- Name: COLUMN jobs.locked_by; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.locked_by IS 'Worker holding the lease while verifying (NULL otherwise).';


--
-- Name: COLUMN jobs.locked_until; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.locked_until IS 'Lease expiry; after it the scheduler puts the job back in the queue.';


--
-- Name: COLUMN jobs.apple_status; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.apple_status IS 'Last verifyReceipt status from Apple (or NULL: no JSON answer).';


--
-- Name: COLUMN jobs.apple_environment; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.apple_environment IS 'Production or Sandbox: which environment answered last.';


--
-- Name: COLUMN jobs.last_error; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.last_error IS 'Why the last attempt did not finish the job (timeout, HTTP 503, lease expired, ...).';


--
-- Name: COLUMN jobs.outcome_reason; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.outcome_reason IS 'Why the job ended as it did (e.g. the rejection reason).';


--
-- Name: COLUMN jobs.finished_at; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.finished_at IS 'When the job reached a terminal state.';


--
-- Name: COLUMN jobs.bounded_answers; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.bounded_answers IS '21004 answers so far (our shared secret refused for this receipt): the job ends failed after a few.';


--
-- Name: COLUMN jobs.redriven_at; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.redriven_at IS 'Last time ops put this failed job back in the queue; the retry deadline counts from here (else from created_at).';


--
-- Name: COLUMN jobs.purchase_key; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.purchase_key IS 'granted / already_granted: the ledger row (receiptq.grants.purchase_key) this job delivered or found.';


--
-- Name: COLUMN jobs.superseded_by; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.superseded_by IS 'resubmit: the later submission of the same transaction (a newer receipt) that took over.';


--
-- Name: COLUMN jobs.kind; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.kind IS 'receipt, signed_transaction (StoreKit 2 JWS, verified locally) or transaction_id (App Store Server API).';


--
-- Name: COLUMN jobs.signed_transaction; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.signed_transaction IS 'StoreKit 2 jwsRepresentation as the app sent it. Never log it.';


--
-- Name: COLUMN jobs.app_account_token; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.app_account_token IS 'The order''s UUID the app passed to StoreKit 2 (appAccountToken), when given.';


--
-- Name: COLUMN jobs.trusted_claim; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.trusted_claim IS 'transaction_id jobs: the backend token that submitted it is trusted to vouch for the user (receiptq api --trusted-claim-tokens), so the claim counts as proof.';


--
-- Name: COLUMN jobs.claim_proof; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.claim_proof IS 'Always NULL once written: the bearer token a trusted claim arrives with, checked against receiptq.trusted_claim_tokens and cleared by jobs_check_trusted_claim before the row is stored.';


--
-- Name: COLUMN jobs.request_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.request_id IS 'The X-Request-Id of the API request that queued the job (1-128 characters of A-Z a-z 0-9 . _ : / + = -); NULL for jobs queued otherwise (renewals, receiptq enqueue, older rows).';


--
-- Name: claimable_work; Type: VIEW; Schema: receiptq; Owner: -
--

CREATE VIEW receiptq.claimable_work AS
 WITH counts AS MATERIALIZED (
         SELECT ( SELECT count(*) AS count
                   FROM receiptq.jobs
                  WHERE ((jobs.state = 'queued'::text) AND (jobs.run_at <= now()))) AS due,
            (( SELECT count(*) AS count
                   FROM receiptq.jobs
                  WHERE ((jobs.state = 'queued'::text) AND (jobs.run_at > (now() - '00:01:00'::interval)) AND (jobs.updated_at > (now() - '00:01:00'::interval)) AND (jobs.last_error IS NOT NULL))) + ( SELECT count(*) AS count
                   FROM receiptq.jobs
                  WHERE ((jobs.state = 'timed_out'::text) AND (jobs.run_at > (now() - '00:01:00'::interval)) AND (jobs.updated_at > (now() - '00:01:00'::interval)) AND (jobs.last_error IS NOT NULL)))) AS failed_last_minute,
            ( SELECT count(*) AS count
                   FROM receiptq.jobs
                  WHERE ((jobs.finished_at > (now() - '00:01:00'::interval)) AND (jobs.state = ANY (ARRAY['granted'::text, 'already_granted'::text, 'rejected'::text])) AND (jobs.apple_environment IS NOT NULL))) AS answered_last_minute
        ), verdict AS MATERIALIZED (
         SELECT counts.due,
            counts.failed_last_minute,
            counts.answered_last_minute,
            ((counts.failed_last_minute >= 10) AND ((counts.failed_last_minute * 4) >= ((counts.failed_last_minute + counts.answered_last_minute) * 3))) AS apple_failing
           FROM counts
        )
 SELECT verdict.due,
    verdict.failed_last_minute,
    verdict.answered_last_minute,
    verdict.apple_failing,
        CASE
            WHEN verdict.apple_failing THEN (0)::bigint
            ELSE verdict.due
        END AS claimable
   FROM verdict;


--
-- Name: VIEW claimable_work; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON VIEW receiptq.claimable_work IS 'What to scale workers on: claimable = jobs due now (queued, run_at <= now()), or 0 while Apple is failing (apple_failing: in the last minute at least 10 attempts ended in a retry or timeout, and they are 3/4 or more of the attempts that ended; the workers'' breakers are open then and claim nothing).';


--
-- Name: consumption_consents; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.consumption_consents (
    user_id text NOT NULL,
    consented boolean NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT consumption_consents_user_check CHECK (((length(user_id) >= 1) AND (length(user_id) <= 256)))
);


--
-- Name: TABLE consumption_consents; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.consumption_consents IS 'Whether the user consented to share consumption data with Apple (recorded by the backend through the API).';


--
-- Name: consumption_requests; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.consumption_requests (
    notification_uuid uuid NOT NULL,
    transaction_id text NOT NULL,
    environment text NOT NULL,
    user_id text,
    reason text,
    deadline timestamp with time zone NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    locked_by text,
    locked_until timestamp with time zone,
    last_error text,
    sent_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT consumption_requests_lease_check CHECK (((state = 'sending'::text) = ((locked_by IS NOT NULL) AND (locked_until IS NOT NULL)))),
    CONSTRAINT consumption_requests_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'sending'::text, 'sent'::text, 'no_consent'::text, 'expired'::text, 'failed'::text])))
);


--
-- Name: TABLE consumption_requests; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.consumption_requests IS 'Apple''s CONSUMPTION_REQUESTs: answered with Send Consumption Information before deadline when the user consented; never after.';


--
-- Name: deliveries; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.deliveries (
    endpoint_id text NOT NULL,
    event_sequence bigint NOT NULL,
    user_id text NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    locked_by text,
    locked_until timestamp with time zone,
    last_status integer,
    last_error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    budget_from timestamp with time zone DEFAULT now() NOT NULL,
    delivered_at timestamp with time zone,
    CONSTRAINT deliveries_lease_check CHECK (((state = 'delivering'::text) = ((locked_by IS NOT NULL) AND (locked_until IS NOT NULL)))),
    CONSTRAINT deliveries_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'delivering'::text, 'delivered'::text, 'failed'::text])))
)
WITH (fillfactor='80', autovacuum_vacuum_scale_factor='0.01', autovacuum_vacuum_cost_delay='0');


--
-- Name: TABLE deliveries; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.deliveries IS 'Webhook deliveries: queued -> delivering (leased) -> delivered | failed (gave up after the retry deadline; re-drivable). In order per (endpoint, user).';


--
-- Name: COLUMN deliveries.budget_from; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.deliveries.budget_from IS 'The retry deadline (3 days by default) counts from here: creation, or the last re-drive.';


--
-- Name: events; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.events (
    sequence bigint NOT NULL,
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    type text NOT NULL,
    user_id text NOT NULL,
    job_id bigint,
    purchase_key text,
    body jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE events; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.events IS 'Append-only outbox: one row per change a backend cares about, written in the same transaction as the change. sequence follows commit order.';


--
-- Name: COLUMN events.id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.events.id IS 'Stable event id: a backend deduplicates deliveries by it.';


--
-- Name: COLUMN events.body; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.events.body IS 'The JSON delivered to webhooks and served by GET /v1/events (documented in the OpenAPI document).';


--
-- Name: events_sequence_seq; Type: SEQUENCE; Schema: receiptq; Owner: -
--

ALTER TABLE receiptq.events ALTER COLUMN sequence ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME receiptq.events_sequence_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: failures; Type: VIEW; Schema: receiptq; Owner: -
--

CREATE VIEW receiptq.failures AS
 SELECT f.state,
    f.apple_status,
    f.reason,
    count(*) AS jobs,
    max(f.seen) AS last_seen
   FROM ( SELECT jobs.state,
            jobs.apple_status,
            COALESCE(jobs.outcome_reason, jobs.last_error) AS reason,
            jobs.finished_at AS seen
           FROM receiptq.jobs
          WHERE ((jobs.state = ANY (ARRAY['rejected'::text, 'failed'::text])) AND (jobs.finished_at > (now() - '24:00:00'::interval)))
        UNION ALL
         SELECT jobs.state,
            jobs.apple_status,
            jobs.last_error,
            jobs.updated_at
           FROM receiptq.jobs
          WHERE ((jobs.state = 'queued'::text) AND (jobs.last_error IS NOT NULL))
        UNION ALL
         SELECT jobs.state,
            jobs.apple_status,
            jobs.last_error,
            jobs.updated_at
           FROM receiptq.jobs
          WHERE (jobs.state = 'timed_out'::text)) f
  GROUP BY f.state, f.apple_status, f.reason
  ORDER BY (count(*)) DESC;


--
-- Name: VIEW failures; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON VIEW receiptq.failures IS 'Rejected and failed jobs of the last 24 hours, and jobs waiting to retry, grouped by state, Apple status and reason.';


--
-- Name: grants; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.grants (
    transaction_id text NOT NULL,
    original_transaction_id text NOT NULL,
    job_id bigint NOT NULL,
    user_id text NOT NULL,
    product_id text NOT NULL,
    quantity integer DEFAULT 1 NOT NULL,
    purchase_date timestamp with time zone,
    environment text NOT NULL,
    order_id text,
    unmatched boolean DEFAULT false NOT NULL,
    granted_at timestamp with time zone DEFAULT now() NOT NULL,
    purchase_key text NOT NULL,
    product_type text,
    ownership_type text DEFAULT 'PURCHASED'::text NOT NULL,
    web_order_line_item_id text,
    expires_date timestamp with time zone,
    claimed_product_id text,
    order_mismatch boolean DEFAULT false NOT NULL,
    revoked_at timestamp with time zone,
    revocation_reason text,
    app_account_token uuid,
    storefront text,
    price bigint,
    currency text,
    revoked_by_notification uuid,
    revocation_signed_at timestamp with time zone,
    signed_under text DEFAULT 'apple'::text NOT NULL,
    manual_by text,
    CONSTRAINT grants_environment_check CHECK ((environment = ANY (ARRAY['Production'::text, 'Sandbox'::text]))),
    CONSTRAINT grants_ownership_check CHECK ((ownership_type = ANY (ARRAY['PURCHASED'::text, 'FAMILY_SHARED'::text]))),
    CONSTRAINT grants_product_type_check CHECK ((product_type = ANY (ARRAY['consumable'::text, 'non_consumable'::text, 'auto_renewable'::text, 'non_renewing'::text]))),
    CONSTRAINT grants_signed_under_check CHECK ((signed_under = ANY (ARRAY['apple'::text, 'test-roots'::text])))
);


--
-- Name: TABLE grants; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.grants IS 'The ledger: one row per purchase (purchase_key), written in the same transaction that ends the job. Never deleted; a refund revokes a row, it does not remove it.';


--
-- Name: COLUMN grants.job_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.job_id IS 'The job that granted it (no foreign key: jobs are pruned, grants are kept).';


--
-- Name: COLUMN grants.environment; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.environment IS 'Production, or Sandbox (App Review and TestFlight purchases).';


--
-- Name: COLUMN grants.unmatched; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.unmatched IS 'No registered order matched: granted anyway (the user paid); for ops to reconcile.';


--
-- Name: COLUMN grants.purchase_key; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.purchase_key IS 'What makes a purchase one purchase: purchase:<original transaction id> (consumables, non-consumables and their restores, non-renewing), period:<web order line item id> (one auto-renewable subscription period and its restores), family:<user>:<…> for a family member''s entitlement.';


--
-- Name: COLUMN grants.product_type; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.product_type IS 'From receiptq.products, else inferred (auto_renewable when Apple gave an expiry); NULL: a one-time purchase of unknown kind.';


--
-- Name: COLUMN grants.ownership_type; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.ownership_type IS 'PURCHASED, or FAMILY_SHARED (a family member''s entitlement: never fulfils an order).';


--
-- Name: COLUMN grants.claimed_product_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.claimed_product_id IS 'The product the client claimed when it differed from Apple''s (granted as Apple verified it).';


--
-- Name: COLUMN grants.order_mismatch; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.order_mismatch IS 'The order the client named is for another product: not fulfilled by this grant.';


--
-- Name: COLUMN grants.revoked_at; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.revoked_at IS 'Apple refunded or revoked the purchase after it was granted (the row stays).';


--
-- Name: COLUMN grants.price; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.price IS 'As Apple reports it in signed transactions: milliunits of currency.';


--
-- Name: COLUMN grants.revoked_by_notification; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.revoked_by_notification IS 'The notification that revoked (or last reinstated) this grant.';


--
-- Name: COLUMN grants.signed_under; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.signed_under IS 'apple: granted by a worker trusting only Apple''s roots; test-roots: by a worker started with --trust-test-roots (test equipment, never production).';


--
-- Name: COLUMN grants.manual_by; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.grants.manual_by IS 'The operator who granted it by hand (receiptq support grant; audited in support_audit). NULL: granted from Apple''s answer. A manual grant''s job_id is negative (manual_grant_ids) and names no job.';


--
-- Name: flagged_grants; Type: VIEW; Schema: receiptq; Owner: -
--

CREATE VIEW receiptq.flagged_grants AS
 SELECT grants.transaction_id,
    grants.purchase_key,
    grants.user_id,
    grants.product_id,
    grants.claimed_product_id,
    grants.order_id,
    grants.unmatched,
    grants.order_mismatch,
    grants.ownership_type,
    grants.environment,
    grants.granted_at
   FROM receiptq.grants
  WHERE (grants.unmatched OR grants.order_mismatch OR (grants.claimed_product_id IS NOT NULL));


--
-- Name: VIEW flagged_grants; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON VIEW receiptq.flagged_grants IS 'Grants whose client claims differed from what Apple verified, or that matched no order: paid, granted, to reconcile.';


--
-- Name: fleet_control; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.fleet_control (
    singleton boolean DEFAULT true NOT NULL,
    paused boolean DEFAULT false NOT NULL,
    changed_at timestamp with time zone DEFAULT now() NOT NULL,
    changed_by text,
    reason text,
    CONSTRAINT fleet_control_singleton_check CHECK (singleton)
);


--
-- Name: TABLE fleet_control; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.fleet_control IS 'One row. paused: workers claim no job (ClaimBatch reads it on every claim); leases already held finish. Set by receiptq support pause / resume (audited).';


--
-- Name: history_syncs; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.history_syncs (
    original_transaction_id text NOT NULL,
    environment text NOT NULL,
    user_id text,
    reason text NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    locked_by text,
    locked_until timestamp with time zone,
    attempts integer DEFAULT 0 NOT NULL,
    revision text,
    pages integer DEFAULT 0 NOT NULL,
    transactions integer DEFAULT 0 NOT NULL,
    requested_at timestamp with time zone DEFAULT now() NOT NULL,
    synced_at timestamp with time zone,
    last_error text,
    covered_by text,
    CONSTRAINT history_syncs_environment_check CHECK ((environment = ANY (ARRAY['Production'::text, 'Sandbox'::text]))),
    CONSTRAINT history_syncs_last_error_check CHECK (((last_error IS NULL) OR (length(last_error) <= 1000))),
    CONSTRAINT history_syncs_lease_check CHECK (((state = 'syncing'::text) = ((locked_by IS NOT NULL) AND (locked_until IS NOT NULL)))),
    CONSTRAINT history_syncs_original_transaction_id_check CHECK (((length(original_transaction_id) >= 1) AND (length(original_transaction_id) <= 64))),
    CONSTRAINT history_syncs_reason_check CHECK ((reason = ANY (ARRAY['request'::text, 'first_sighting'::text, 'backfill'::text]))),
    CONSTRAINT history_syncs_revision_check CHECK (((revision IS NULL) OR (length(revision) <= 1000))),
    CONSTRAINT history_syncs_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'syncing'::text, 'synced'::text, 'failed'::text]))),
    CONSTRAINT history_syncs_user_id_check CHECK (((user_id IS NULL) OR ((length(user_id) >= 1) AND (length(user_id) <= 256))))
);


--
-- Name: TABLE history_syncs; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.history_syncs IS 'History syncs: Get Transaction History v2 walks per original transaction, resumable from revision (HistorySyncLifecycle).';


--
-- Name: COLUMN history_syncs.user_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.history_syncs.user_id IS 'Who asked: the user of a restore (POST /v1/users/{user_id}/history-syncs, only by an owner of the original transaction), or the user an operator named for a backfill (receiptq sync --user-id, owner''s login only: the one case that makes this user the owner of purchases nobody owns yet). NULL: a first sighting or a backfill of the whole ledger.';


--
-- Name: COLUMN history_syncs.revision; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.history_syncs.revision IS 'Apple''s revision after the last page imported: the next walk starts here and receives only what changed since.';


--
-- Name: COLUMN history_syncs.covered_by; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.history_syncs.covered_by IS 'Synced by the walk of another original transaction of the same customer (one history per Apple account): that one''s id; NULL when walked itself.';


--
-- Name: jobs_id_seq; Type: SEQUENCE; Schema: receiptq; Owner: -
--

ALTER TABLE receiptq.jobs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME receiptq.jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: worker_heartbeats; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.worker_heartbeats (
    worker text NOT NULL,
    host text,
    pid integer,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    beat_at timestamp with time zone DEFAULT now() NOT NULL,
    interval_ms integer NOT NULL,
    CONSTRAINT worker_heartbeats_interval_ms_check CHECK ((interval_ms > 0)),
    CONSTRAINT worker_heartbeats_worker_check CHECK (((length(worker) >= 1) AND (length(worker) <= 200)))
);


--
-- Name: TABLE worker_heartbeats; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.worker_heartbeats IS 'One row per worker process (its --name), written every interval_ms by the worker and deleted when it stops gracefully. live_workers says which are live.';


--
-- Name: live_workers; Type: VIEW; Schema: receiptq; Owner: -
--

CREATE VIEW receiptq.live_workers AS
 SELECT h.worker,
    h.host,
    h.pid,
    h.started_at,
    h.beat_at,
    h.interval_ms,
    (h.beat_at >= (now() - (((3 * h.interval_ms))::double precision * '00:00:00.001'::interval))) AS live,
    ( SELECT count(*) AS count
           FROM receiptq.jobs j
          WHERE ((j.state = 'verifying'::text) AND (j.locked_by = h.worker))) AS leased_jobs
   FROM receiptq.worker_heartbeats h;


--
-- Name: VIEW live_workers; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON VIEW receiptq.live_workers IS 'Each worker that beat (worker_heartbeats): live when its last beat is within three of its intervals; leased_jobs: jobs it holds now.';


--
-- Name: manual_grant_ids; Type: SEQUENCE; Schema: receiptq; Owner: -
--

CREATE SEQUENCE receiptq.manual_grant_ids
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: SEQUENCE manual_grant_ids; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON SEQUENCE receiptq.manual_grant_ids IS 'Manual grants take job_id = -nextval: never a job''s id.';


--
-- Name: notification_recovery; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.notification_recovery (
    environment text NOT NULL,
    checked_through timestamp with time zone NOT NULL,
    last_run_at timestamp with time zone,
    last_error text,
    recovered_total bigint DEFAULT 0 NOT NULL,
    CONSTRAINT notification_recovery_environment_check CHECK ((environment = ANY (ARRAY['Production'::text, 'Sandbox'::text])))
);


--
-- Name: TABLE notification_recovery; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.notification_recovery IS 'Get Notification History read through checked_through (less an overlap each run); notifications found there and not here are enqueued.';


--
-- Name: notifications; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.notifications (
    notification_uuid uuid NOT NULL,
    notification_type text NOT NULL,
    subtype text,
    environment text NOT NULL,
    signed_date timestamp with time zone NOT NULL,
    original_transaction_id text,
    transaction_id text,
    signed_payload text NOT NULL,
    source text DEFAULT 'endpoint'::text NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    locked_by text,
    locked_until timestamp with time zone,
    last_error text,
    outcome text,
    received_at timestamp with time zone DEFAULT now() NOT NULL,
    applied_at timestamp with time zone,
    CONSTRAINT notifications_environment_check CHECK ((environment = ANY (ARRAY['Production'::text, 'Sandbox'::text]))),
    CONSTRAINT notifications_lease_check CHECK (((state = 'applying'::text) = ((locked_by IS NOT NULL) AND (locked_until IS NOT NULL)))),
    CONSTRAINT notifications_source_check CHECK ((source = ANY (ARRAY['endpoint'::text, 'history'::text, 'test'::text]))),
    CONSTRAINT notifications_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'applying'::text, 'applied'::text, 'failed'::text, 'quarantined'::text]))),
    CONSTRAINT notifications_type_check CHECK (((length(notification_type) >= 1) AND (length(notification_type) <= 64)))
)
WITH (fillfactor='80');
ALTER TABLE ONLY receiptq.notifications ALTER COLUMN signed_payload SET STORAGE EXTERNAL;


--
-- Name: TABLE notifications; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.notifications IS 'App Store Server Notifications V2 as Apple signed them, one row per notificationUUID: queued -> applying (leased) -> applied | failed (re-drivable); quarantined: Apple''s, refused by this configuration (last_error says why), re-drivable once it is fixed.';


--
-- Name: COLUMN notifications.signed_payload; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.notifications.signed_payload IS 'Apple''s signedPayload, kept for audit and re-application. Never log it.';


--
-- Name: COLUMN notifications.source; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.notifications.source IS 'endpoint (Apple POSTed it), history (found by Get Notification History), test (receiptq notifications test).';


--
-- Name: COLUMN notifications.outcome; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.notifications.outcome IS 'What applying it did, for ops: grant revoked, period enqueued for a user, no user known yet, recorded.';


--
-- Name: notification_health; Type: VIEW; Schema: receiptq; Owner: -
--

CREATE VIEW receiptq.notification_health AS
 SELECT e.environment,
    ( SELECT max(n.received_at) AS max
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.source = 'endpoint'::text))) AS last_received_at,
    ( SELECT count(*) AS count
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.state = ANY (ARRAY['queued'::text, 'applying'::text])))) AS open,
    ( SELECT min(n.received_at) AS min
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.state = ANY (ARRAY['queued'::text, 'applying'::text])))) AS oldest_open_since,
    ( SELECT count(*) AS count
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.state = 'failed'::text))) AS failed,
    ( SELECT count(*) AS count
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.source = 'history'::text))) AS recovered_from_history,
    r.checked_through AS history_checked_through,
    r.last_run_at AS history_last_run_at,
    r.last_error AS history_last_error,
    ( SELECT count(*) AS count
           FROM receiptq.consumption_requests c
          WHERE ((c.environment = e.environment) AND (c.state = ANY (ARRAY['queued'::text, 'sending'::text])))) AS consumption_requests_open,
    ( SELECT count(*) AS count
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.state = 'quarantined'::text))) AS quarantined,
    ( SELECT min(n.received_at) AS min
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.state = 'quarantined'::text))) AS oldest_quarantined_since
   FROM (( VALUES ('Production'::text), ('Sandbox'::text)) e(environment)
     LEFT JOIN receiptq.notification_recovery r ON ((r.environment = e.environment)));


--
-- Name: VIEW notification_health; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON VIEW receiptq.notification_health IS 'Per environment: last notification received, open and failed ones, how many the history recovery found, how far it has read.';


--
-- Name: orders; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.orders (
    order_id text NOT NULL,
    user_id text NOT NULL,
    product_id text NOT NULL,
    state text DEFAULT 'pending'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    fulfilled_at timestamp with time zone,
    app_account_token uuid,
    CONSTRAINT orders_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'fulfilled'::text, 'cancelled'::text])))
);


--
-- Name: TABLE orders; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.orders IS 'Orders the backend registered before a purchase; matched to grants by order id, else by the user''s oldest pending order for the product.';


--
-- Name: COLUMN orders.state; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.orders.state IS 'pending until a grant fulfils it; cancelled by the backend.';


--
-- Name: COLUMN orders.app_account_token; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.orders.app_account_token IS 'UUID for StoreKit 2''s appAccountToken: a transaction carrying it fulfils this order.';


--
-- Name: outcomes; Type: VIEW; Schema: receiptq; Owner: -
--

CREATE VIEW receiptq.outcomes AS
 SELECT s.state,
    count(j.finished_at) FILTER (WHERE (j.finished_at > (now() - '00:01:00'::interval))) AS last_minute,
    count(j.finished_at) AS last_hour
   FROM (( VALUES ('granted'::text), ('already_granted'::text), ('rejected'::text), ('failed'::text), ('resubmit'::text), ('owned_elsewhere'::text)) s(state)
     LEFT JOIN receiptq.jobs j ON (((j.state = s.state) AND (j.finished_at > (now() - '01:00:00'::interval)) AND (j.state = ANY (ARRAY['granted'::text, 'already_granted'::text, 'rejected'::text, 'failed'::text, 'resubmit'::text, 'owned_elsewhere'::text])))))
  GROUP BY s.state;


--
-- Name: VIEW outcomes; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON VIEW receiptq.outcomes IS 'Jobs that reached each terminal state in the last minute and the last hour.';


--
-- Name: ownership_refusals; Type: VIEW; Schema: receiptq; Owner: -
--

CREATE VIEW receiptq.ownership_refusals AS
 SELECT j.id AS job_id,
    j.kind,
    j.user_id AS submitted_by,
    j.transaction_id,
    j.outcome_reason AS reason,
    g.user_id AS owner,
    j.purchase_key,
    j.finished_at
   FROM (receiptq.jobs j
     LEFT JOIN receiptq.grants g ON ((g.purchase_key = j.purchase_key)))
  WHERE ((j.state = 'owned_elsewhere'::text) AND (j.finished_at > (now() - '7 days'::interval)));


--
-- Name: VIEW ownership_refusals; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON VIEW receiptq.ownership_refusals IS 'Submissions of the last 7 days that lost ownership of a purchase (a replay under another account, or a token naming another account''s order).';


--
-- Name: products; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.products (
    product_id text NOT NULL,
    type text NOT NULL,
    subscription_group text,
    group_level integer,
    entitlements text[],
    CONSTRAINT products_group_level_check CHECK (((group_level IS NULL) OR (group_level >= 1))),
    CONSTRAINT products_type_check CHECK ((type = ANY (ARRAY['consumable'::text, 'non_consumable'::text, 'auto_renewable'::text, 'non_renewing'::text])))
);


--
-- Name: TABLE products; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.products IS 'Optional catalog: product id -> type. Overrides what the ledger infers from Apple''s answer.';


--
-- Name: COLUMN products.subscription_group; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.products.subscription_group IS 'Apple''s subscription group identifier (auto-renewable products).';


--
-- Name: COLUMN products.group_level; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.products.group_level IS 'Apple''s level within the group: 1 is the highest service. Tells upgrades from downgrades and crossgrades.';


--
-- Name: COLUMN products.entitlements; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.products.entitlements IS 'The entitlement names the product unlocks (e.g. {pro}); NULL: the product id itself.';


--
-- Name: queue_depth; Type: VIEW; Schema: receiptq; Owner: -
--

CREATE VIEW receiptq.queue_depth AS
 SELECT 'queued'::text AS state,
    count(*) AS jobs,
    count(*) FILTER (WHERE (jobs.run_at <= now())) AS ready,
    count(*) FILTER (WHERE (jobs.run_at > now())) AS delayed
   FROM receiptq.jobs
  WHERE (jobs.state = 'queued'::text)
UNION ALL
 SELECT 'verifying'::text AS state,
    count(*) AS jobs,
    count(*) FILTER (WHERE (jobs.locked_until >= now())) AS ready,
    count(*) FILTER (WHERE (jobs.locked_until < now())) AS delayed
   FROM receiptq.jobs
  WHERE (jobs.state = 'verifying'::text)
UNION ALL
 SELECT 'timed_out'::text AS state,
    count(*) AS jobs,
    count(*) FILTER (WHERE (jobs.run_at <= now())) AS ready,
    count(*) FILTER (WHERE (jobs.run_at > now())) AS delayed
   FROM receiptq.jobs
  WHERE (jobs.state = 'timed_out'::text);


--
-- Name: VIEW queue_depth; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON VIEW receiptq.queue_depth IS 'Jobs not yet finished, per state. ready/delayed: due now vs later (for verifying: lease valid vs expired).';


--
-- Name: queue_health; Type: VIEW; Schema: receiptq; Owner: -
--

CREATE VIEW receiptq.queue_health AS
 SELECT ( SELECT (now() - min(jobs.run_at))
           FROM receiptq.jobs
          WHERE ((jobs.state = 'queued'::text) AND (jobs.run_at <= now()))) AS oldest_ready_age,
    ( SELECT count(*) AS count
           FROM receiptq.jobs
          WHERE ((jobs.state = 'queued'::text) AND (jobs.run_at <= now()))) AS ready,
    ( SELECT count(*) AS count
           FROM receiptq.jobs
          WHERE (jobs.state = 'verifying'::text)) AS verifying,
    ( SELECT count(*) AS count
           FROM receiptq.jobs
          WHERE ((jobs.state = 'verifying'::text) AND (jobs.locked_until < now()))) AS expired_leases,
    ( SELECT count(*) AS count
           FROM receiptq.jobs
          WHERE ((jobs.state = 'queued'::text) AND (jobs.last_error IS NOT NULL))) AS retrying,
    o.finished_last_minute,
    o.finished_last_hour,
    o.failed_last_hour,
    o.rejected_last_hour,
    round((o.failed_last_hour / NULLIF(o.finished_last_hour, (0)::numeric)), 4) AS failure_rate_last_hour,
    pg_notification_queue_usage() AS notify_queue_usage
   FROM ( SELECT sum(outcomes.last_minute) AS finished_last_minute,
            sum(outcomes.last_hour) AS finished_last_hour,
            sum(outcomes.last_hour) FILTER (WHERE (outcomes.state = 'failed'::text)) AS failed_last_hour,
            sum(outcomes.last_hour) FILTER (WHERE (outcomes.state = 'rejected'::text)) AS rejected_last_hour
           FROM receiptq.outcomes) o;


--
-- Name: VIEW queue_health; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON VIEW receiptq.queue_health IS 'Oldest ready job age, expired leases, jobs retrying after an error, completions in the last minute/hour, share of jobs that ended failed (gave up) in the last hour, NOTIFY queue usage (0-1).';


--
-- Name: receipt_submissions; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.receipt_submissions (
    receipt_sha256 bytea NOT NULL,
    transaction_id text NOT NULL,
    user_id text NOT NULL,
    job_id bigint NOT NULL
);


--
-- Name: TABLE receipt_submissions; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.receipt_submissions IS 'One row per distinct receipt submission (receipt digest, transaction id, user): the dedupe key of kind = receipt jobs and the job it made. Written once by the enqueue, before the job; deleted with the job by pruning. Never updated.';


--
-- Name: COLUMN receipt_submissions.job_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.receipt_submissions.job_id IS 'The job the first such submission made (jobs.id; no foreign key: the enqueue writes the key first, and a check per row would cost the intake).';


--
-- Name: subscription_corrections; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.subscription_corrections (
    id bigint NOT NULL,
    original_transaction_id text NOT NULL,
    environment text NOT NULL,
    source text NOT NULL,
    fields text[] NOT NULL,
    state_before text,
    state_after text,
    corrected_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT subscription_corrections_fields_check CHECK ((cardinality(fields) > 0)),
    CONSTRAINT subscription_corrections_source_check CHECK ((source = ANY (ARRAY['status_check'::text, 'history'::text])))
);


--
-- Name: TABLE subscription_corrections; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.subscription_corrections IS 'Each time Apple''s status or history disagreed with what notifications had left in receiptq.subscriptions: the fields corrected.';


--
-- Name: subscriptions; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.subscriptions (
    original_transaction_id text NOT NULL,
    environment text NOT NULL,
    user_id text,
    product_id text,
    status integer,
    auto_renew_status integer,
    expires_date timestamp with time zone,
    grace_period_expires_date timestamp with time zone,
    last_notification_type text,
    last_subtype text,
    signed_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    model jsonb,
    state text,
    group_id text,
    transaction_id text,
    renews_to_product_id text,
    expiration_reason text,
    offer_type text,
    offer_id text,
    price_increase text,
    revoked_at timestamp with time zone,
    last_source text,
    reconcile_at timestamp with time zone,
    reconciled_at timestamp with time zone,
    CONSTRAINT subscriptions_state_check CHECK (((state IS NULL) OR (state = ANY (ARRAY['active'::text, 'billing_retry'::text, 'grace_period'::text, 'expired'::text, 'revoked'::text])))),
    CONSTRAINT subscriptions_status_check CHECK (((status IS NULL) OR ((status >= 1) AND (status <= 5))))
);


--
-- Name: TABLE subscriptions; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.subscriptions IS 'Latest known state of each auto-renewable subscription (status 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked), as of signed_at.';


--
-- Name: COLUMN subscriptions.product_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.subscriptions.product_id IS 'The current period''s product: what the customer has access to (an upgrade changes it at once, a downgrade at renewal).';


--
-- Name: COLUMN subscriptions.expires_date; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.subscriptions.expires_date IS 'When the current period ends, renewal-date extensions included.';


--
-- Name: COLUMN subscriptions.model; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.subscriptions.model IS 'SubscriptionModel''s snapshot (JSON); NULL for a row written before 0020, rebuilt from its columns on the next fact.';


--
-- Name: COLUMN subscriptions.state; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.subscriptions.state IS 'active, billing_retry, grace_period, expired or revoked: Apple''s status when it stated one, else implied by the dates.';


--
-- Name: COLUMN subscriptions.renews_to_product_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.subscriptions.renews_to_product_id IS 'The product it renews to; differs from product_id while a downgrade or crossgrade waits for the renewal.';


--
-- Name: COLUMN subscriptions.last_source; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.subscriptions.last_source IS 'What last changed it: notification:<TYPE>[:<SUBTYPE>], receipt (a submitted receipt), transaction (a submitted signed transaction), history or status_check.';


--
-- Name: COLUMN subscriptions.reconcile_at; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.subscriptions.reconcile_at IS 'When Get All Subscription Statuses is next asked about it (due-first; a claim moves it out by a lease).';


--
-- Name: COLUMN subscriptions.reconciled_at; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.subscriptions.reconciled_at IS 'When Apple''s status was last read for it.';


--
-- Name: reconciliation_health; Type: VIEW; Schema: receiptq; Owner: -
--

CREATE VIEW receiptq.reconciliation_health AS
 SELECT e.environment,
    ( SELECT count(*) AS count
           FROM receiptq.subscriptions s
          WHERE (s.environment = e.environment)) AS subscriptions,
    ( SELECT count(*) AS count
           FROM receiptq.subscriptions s
          WHERE ((s.environment = e.environment) AND (s.reconcile_at <= now()))) AS due,
    ( SELECT count(*) AS count
           FROM receiptq.subscriptions s
          WHERE ((s.environment = e.environment) AND (s.reconcile_at <= (now() - '01:00:00'::interval)))) AS overdue_1h,
    ( SELECT max(s.reconciled_at) AS max
           FROM receiptq.subscriptions s
          WHERE (s.environment = e.environment)) AS last_reconciled_at,
    ( SELECT count(*) AS count
           FROM receiptq.subscriptions s
          WHERE ((s.environment = e.environment) AND (s.reconciled_at > (now() - '24:00:00'::interval)))) AS reconciled_24h,
    ( SELECT count(*) AS count
           FROM receiptq.subscription_corrections c
          WHERE ((c.environment = e.environment) AND (c.source = 'status_check'::text) AND (c.corrected_at > (now() - '24:00:00'::interval)))) AS corrected_by_status_24h,
    ( SELECT count(*) AS count
           FROM receiptq.subscription_corrections c
          WHERE ((c.environment = e.environment) AND (c.source = 'history'::text) AND (c.corrected_at > (now() - '24:00:00'::interval)))) AS corrected_by_history_24h,
    ( SELECT count(*) AS count
           FROM receiptq.history_syncs h
          WHERE ((h.environment = e.environment) AND (h.state = ANY (ARRAY['queued'::text, 'syncing'::text])))) AS history_syncs_open,
    ( SELECT count(*) AS count
           FROM receiptq.history_syncs h
          WHERE ((h.environment = e.environment) AND (h.state = 'failed'::text))) AS history_syncs_failed
   FROM ( VALUES ('Production'::text), ('Sandbox'::text)) e(environment);


--
-- Name: VIEW reconciliation_health; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON VIEW receiptq.reconciliation_health IS 'Per environment: subscriptions due and overdue for a status check, checks in the last 24 h, fields corrected by status checks and history syncs in the last 24 h (disagreements with notifications), history syncs open and failed.';


--
-- Name: revocations; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.revocations (
    transaction_id text NOT NULL,
    original_transaction_id text,
    revoked_at timestamp with time zone,
    reason text NOT NULL,
    revocation_reason integer,
    notification_uuid uuid,
    signed_at timestamp with time zone NOT NULL,
    reinstated_at timestamp with time zone,
    source text DEFAULT 'notification'::text NOT NULL,
    CONSTRAINT revocations_source_check CHECK ((((source = 'notification'::text) = (notification_uuid IS NOT NULL)) AND (source = ANY (ARRAY['notification'::text, 'history'::text]))))
);


--
-- Name: TABLE revocations; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.revocations IS 'REFUND / REVOKE per transaction (reinstated_at set by REFUND_REVERSED). Consulted before every grant: a refunded purchase is not paid.';


--
-- Name: COLUMN revocations.source; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.revocations.source IS 'Where Apple said it: notification (notification_uuid names it) or history (a history sync''s page, signed_at its signing time).';


--
-- Name: schema_migrations; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE schema_migrations; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.schema_migrations IS 'Migrations applied by receiptq migrate (SHA-256 of each file).';


--
-- Name: schema_repeatables; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.schema_repeatables (
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE schema_repeatables; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.schema_repeatables IS 'Repeatable files (SQL/functions, SQL/views) as last applied by receiptq migrate (SHA-256 of each).';


--
-- Name: subscription_corrections_id_seq; Type: SEQUENCE; Schema: receiptq; Owner: -
--

ALTER TABLE receiptq.subscription_corrections ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME receiptq.subscription_corrections_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: support_audit; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.support_audit (
    id bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    actor text NOT NULL,
    login text DEFAULT SESSION_USER NOT NULL,
    action text NOT NULL,
    subject text NOT NULL,
    why text NOT NULL,
    before jsonb,
    after jsonb,
    CONSTRAINT support_audit_action_check CHECK ((action ~ '^[a-z][a-z_.]{0,63}$'::text)),
    CONSTRAINT support_audit_actor_check CHECK (((length(actor) >= 1) AND (length(actor) <= 200))),
    CONSTRAINT support_audit_subject_check CHECK (((length(subject) >= 1) AND (length(subject) <= 300))),
    CONSTRAINT support_audit_why_check CHECK (((length(btrim(why)) >= 1) AND (length(btrim(why)) <= 1000)))
);


--
-- Name: TABLE support_audit; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.support_audit IS 'Every support write (API, console, CLI): who (actor: the operator''s credential name; login: the database login), when, what (action, subject), why, and the rows before and after. Append-only: support_audit_append_only refuses UPDATE, DELETE and TRUNCATE for every role, the owner included.';


--
-- Name: support_audit_id_seq; Type: SEQUENCE; Schema: receiptq; Owner: -
--

ALTER TABLE receiptq.support_audit ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME receiptq.support_audit_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: transaction_submissions; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.transaction_submissions (
    kind text NOT NULL,
    transaction_id text NOT NULL,
    user_id text NOT NULL,
    environment text NOT NULL,
    job_id bigint NOT NULL,
    CONSTRAINT transaction_submissions_kind_check CHECK ((kind = ANY (ARRAY['signed_transaction'::text, 'transaction_id'::text])))
);


--
-- Name: TABLE transaction_submissions; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.transaction_submissions IS 'One row per distinct submission of a signed transaction (kind, transaction id, user, environment) or a transaction id (environment ''''): the dedupe key of those jobs and the job it made. Written once by the enqueue, before the job; deleted with the job by pruning. Never updated.';


--
-- Name: COLUMN transaction_submissions.job_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.transaction_submissions.job_id IS 'The job the first such submission made (jobs.id; no foreign key, as receipt_submissions).';


--
-- Name: trusted_claim_tokens; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.trusted_claim_tokens (
    digest text NOT NULL,
    note text,
    added_at timestamp with time zone DEFAULT now() NOT NULL,
    added_by text DEFAULT CURRENT_USER NOT NULL,
    CONSTRAINT trusted_claim_tokens_digest_check CHECK ((digest ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT trusted_claim_tokens_note_check CHECK (((note IS NULL) OR (length(note) <= 200)))
);


--
-- Name: TABLE trusted_claim_tokens; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.trusted_claim_tokens IS 'SHA-256 digests (hex) of the API tokens whose transaction-id claims count as proof of who paid. Written by the owner only (receiptq trusted-claims); the API reads it to refuse a configuration the database would not believe.';


--
-- Name: webhook_endpoints; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.webhook_endpoints (
    id text NOT NULL,
    url text NOT NULL,
    secrets text[] NOT NULL,
    event_types text[],
    enabled boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhook_endpoints_id_check CHECK ((id ~ '^[A-Za-z0-9_.-]{1,64}$'::text)),
    CONSTRAINT webhook_endpoints_secrets_check CHECK (((cardinality(secrets) >= 1) AND (cardinality(secrets) <= 2)))
);


--
-- Name: TABLE webhook_endpoints; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.webhook_endpoints IS 'Backends that receive events by HTTPS POST, signed with HMAC-SHA256. Secrets are never logged.';


--
-- Name: COLUMN webhook_endpoints.event_types; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.webhook_endpoints.event_types IS 'Event types (or prefixes ending in .*) this endpoint receives; NULL: all.';


--
-- Name: webhook_health; Type: VIEW; Schema: receiptq; Owner: -
--

CREATE VIEW receiptq.webhook_health AS
 SELECT e.id AS endpoint_id,
    e.url,
    e.enabled,
    ( SELECT count(*) AS count
           FROM receiptq.deliveries d
          WHERE ((d.endpoint_id = e.id) AND (d.state = ANY (ARRAY['queued'::text, 'delivering'::text])))) AS pending,
    ( SELECT min(d.created_at) AS min
           FROM receiptq.deliveries d
          WHERE ((d.endpoint_id = e.id) AND (d.state = ANY (ARRAY['queued'::text, 'delivering'::text])))) AS oldest_pending_since,
    ( SELECT count(*) AS count
           FROM receiptq.deliveries d
          WHERE ((d.endpoint_id = e.id) AND (d.state = 'failed'::text))) AS failed,
    ( SELECT max(d.delivered_at) AS max
           FROM receiptq.deliveries d
          WHERE ((d.endpoint_id = e.id) AND (d.state = 'delivered'::text) AND (d.delivered_at > (now() - '01:00:00'::interval)))) AS last_delivered_at
   FROM receiptq.webhook_endpoints e;


--
-- Name: VIEW webhook_health; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON VIEW receiptq.webhook_health IS 'Per webhook endpoint: deliveries pending (and since when), failed, last delivered in the last hour.';


--
-- Data for Name: api_rate_budgets; Type: TABLE DATA; Schema: receiptq; Owner: -
--



--
-- Data for Name: consumption_consents; Type: TABLE DATA; Schema: receiptq; Owner: -
--



--
-- Data for Name: consumption_requests; Type: TABLE DATA; Schema: receiptq; Owner: -
--



--
-- Data for Name: deliveries; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.deliveries VALUES ('backend', 2, 'alice', 'queued', 0, '2026-11-28 08:14:20.165454+00', NULL, NULL, NULL, NULL, '2026-11-28 08:14:20.165454+00', '2026-11-28 08:14:20.165454+00', NULL);
INSERT INTO receiptq.deliveries VALUES ('backend', 3, 'alice', 'queued', 0, '2026-11-28 08:14:20.165454+00', NULL, NULL, NULL, NULL, '2026-11-28 08:14:20.165454+00', '2026-11-28 08:14:20.165454+00', NULL);
INSERT INTO receiptq.deliveries VALUES ('backend', 4, 'mallory', 'queued', 0, '2026-11-28 08:14:20.165454+00', NULL, NULL, NULL, NULL, '2026-11-28 08:14:20.165454+00', '2026-11-28 08:14:20.165454+00', NULL);
INSERT INTO receiptq.deliveries VALUES ('backend', 5, 'alice', 'queued', 0, '2026-11-28 08:14:20.165454+00', NULL, NULL, NULL, NULL, '2026-11-28 08:14:20.165454+00', '2026-11-28 08:14:20.165454+00', NULL);
INSERT INTO receiptq.deliveries VALUES ('backend', 6, 'carol', 'queued', 0, '2026-11-28 08:14:20.165454+00', NULL, NULL, NULL, NULL, '2026-11-28 08:14:20.165454+00', '2026-11-28 08:14:20.165454+00', NULL);
INSERT INTO receiptq.deliveries VALUES ('backend', 7, 'bob', 'queued', 0, '2026-11-28 08:14:20.165454+00', NULL, NULL, NULL, NULL, '2026-11-28 08:14:20.165454+00', '2026-11-28 08:14:20.165454+00', NULL);
INSERT INTO receiptq.deliveries VALUES ('backend', 8, 'eve', 'queued', 0, '2026-11-28 08:14:20.165454+00', NULL, NULL, NULL, NULL, '2026-11-28 08:14:20.165454+00', '2026-11-28 08:14:20.165454+00', NULL);


--
-- Data for Name: events; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.events OVERRIDING SYSTEM VALUE VALUES (1, '43abea12-04ec-4709-9eb4-6544ce32f63f', 'grant.granted_manually', 'dave', NULL, 'manual:ticket-1', '{"manual": true, "reason": "outage goodwill", "quantity": 1, "product_id": "com.example.pro", "environment": "Production", "product_type": "non_consumable", "purchase_key": "manual:ticket-1", "transaction_id": "manual:ticket-1", "original_transaction_id": "manual:ticket-1"}', '2026-11-28 08:14:20.122142+00');
INSERT INTO receiptq.events OVERRIDING SYSTEM VALUE VALUES (2, '7834558f-4760-4d42-b086-d6535694a720', 'verdict.delivered', 'alice', 1, 'period:w-1', '{"state": "granted", "job_id": 1, "verdict": "delivered", "purchase": {"quantity": 1, "expires_at": "2026-10-28T08:14:20.106176+00:00", "product_id": "com.example.monthly", "environment": "Production", "purchase_key": "period:w-1", "ownership_type": "PURCHASED", "transaction_id": "s-1", "original_transaction_id": "s-1"}, "status_url": "/v1/receipts/1", "transaction_id": "s-1"}', '2026-11-28 08:14:20.165454+00');
INSERT INTO receiptq.events OVERRIDING SYSTEM VALUE VALUES (3, 'd0ff0f42-1d98-46e5-a55c-50b7eb568bed', 'verdict.delivered', 'alice', 2, 'purchase:n-1', '{"state": "granted", "job_id": 2, "verdict": "delivered", "purchase": {"quantity": 1, "product_id": "com.example.pro", "environment": "Production", "purchase_key": "purchase:n-1", "ownership_type": "PURCHASED", "transaction_id": "n-1", "original_transaction_id": "n-1"}, "status_url": "/v1/receipts/2", "transaction_id": "n-1"}', '2026-11-28 08:14:20.165454+00');
INSERT INTO receiptq.events OVERRIDING SYSTEM VALUE VALUES (4, 'e7d428b2-b82c-497d-b366-b2c04d902fd7', 'verdict.delivered', 'mallory', 3, 'period:w-2', '{"state": "granted", "job_id": 3, "verdict": "delivered", "purchase": {"quantity": 1, "expires_at": "2026-11-27T08:14:20.106176+00:00", "product_id": "com.example.monthly", "environment": "Production", "purchase_key": "period:w-2", "ownership_type": "PURCHASED", "transaction_id": "s-2", "original_transaction_id": "s-1"}, "status_url": "/v1/receipts/3", "transaction_id": "s-2"}', '2026-11-28 08:14:20.165454+00');
INSERT INTO receiptq.events OVERRIDING SYSTEM VALUE VALUES (5, '86d42690-7172-42f4-9f65-7536c92e58f8', 'verdict.revoked', 'alice', 4, 'purchase:c-1', '{"state": "granted", "job_id": 4, "verdict": "revoked", "purchase": {"quantity": 3, "product_id": "com.example.coins", "revoked_at": "2026-11-27T08:14:20.118199+00:00", "environment": "Sandbox", "purchase_key": "purchase:c-1", "ownership_type": "PURCHASED", "transaction_id": "c-1", "original_transaction_id": "c-1"}, "status_url": "/v1/receipts/4", "transaction_id": "c-1"}', '2026-11-28 08:14:20.165454+00');
INSERT INTO receiptq.events OVERRIDING SYSTEM VALUE VALUES (6, 'de096a8d-6219-42a2-ab54-d1ce48847ddc', 'verdict.delivered', 'carol', 5, 'family:purchase:f-1', '{"state": "granted", "job_id": 5, "verdict": "delivered", "purchase": {"quantity": 1, "product_id": "com.example.pro", "environment": "Production", "purchase_key": "family:purchase:f-1", "ownership_type": "FAMILY_SHARED", "transaction_id": "f-1", "original_transaction_id": "f-1"}, "status_url": "/v1/receipts/5", "transaction_id": "f-1"}', '2026-11-28 08:14:20.165454+00');
INSERT INTO receiptq.events OVERRIDING SYSTEM VALUE VALUES (7, '21f53080-f668-4cf5-9d6f-fc62a979d75f', 'verdict.delivered', 'bob', 6, 'period:w-9', '{"state": "granted", "job_id": 6, "verdict": "delivered", "purchase": {"order_id": "o-bob", "quantity": 1, "expires_at": "2026-12-26T08:14:20.106176+00:00", "product_id": "com.example.monthly", "environment": "Production", "purchase_key": "period:w-9", "ownership_type": "PURCHASED", "transaction_id": "b-1", "original_transaction_id": "b-1"}, "status_url": "/v1/receipts/6", "transaction_id": "b-1"}', '2026-11-28 08:14:20.165454+00');
INSERT INTO receiptq.events OVERRIDING SYSTEM VALUE VALUES (8, 'e4749058-4592-4997-92c7-fae280a5f27f', 'verdict.delivered', 'eve', 7, 'period:w-3', '{"state": "granted", "job_id": 7, "verdict": "delivered", "purchase": {"quantity": 1, "expires_at": "2026-12-27T08:14:20.106176+00:00", "product_id": "com.example.monthly", "environment": "Production", "purchase_key": "period:w-3", "ownership_type": "PURCHASED", "transaction_id": "s-3", "original_transaction_id": "s-1"}, "status_url": "/v1/receipts/7", "transaction_id": "s-3"}', '2026-11-28 08:14:20.165454+00');


--
-- Data for Name: fleet_control; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.fleet_control VALUES (true, false, '2026-11-28 08:13:57.286143+00', NULL, NULL);


--
-- Data for Name: grants; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.grants VALUES ('manual:ticket-1', 'manual:ticket-1', -1, 'dave', 'com.example.pro', 1, NULL, 'Production', NULL, false, '2026-11-28 08:14:20.122142+00', 'manual:ticket-1', 'non_consumable', 'PURCHASED', NULL, NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'apple', 'ops');
INSERT INTO receiptq.grants VALUES ('s-1', 's-1', 1, 'alice', 'com.example.monthly', 1, '2026-09-27 08:14:20.106176+00', 'Production', NULL, true, '2026-09-27 08:14:20.106176+00', 'period:w-1', 'auto_renewable', 'PURCHASED', 'w-1', '2026-10-28 08:14:20.106176+00', NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'apple', NULL);
INSERT INTO receiptq.grants VALUES ('n-1', 'n-1', 2, 'alice', 'com.example.pro', 1, '2026-11-18 08:14:20.106176+00', 'Production', NULL, true, '2026-11-18 08:14:20.106176+00', 'purchase:n-1', 'non_consumable', 'PURCHASED', NULL, NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'apple', NULL);
INSERT INTO receiptq.grants VALUES ('s-2', 's-1', 3, 'mallory', 'com.example.monthly', 1, '2026-10-28 08:14:20.106176+00', 'Production', NULL, true, '2026-11-23 08:14:20.106176+00', 'period:w-2', 'auto_renewable', 'PURCHASED', 'w-2', '2026-11-27 08:14:20.106176+00', NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'apple', NULL);
INSERT INTO receiptq.grants VALUES ('c-1', 'c-1', 4, 'alice', 'com.example.coins', 3, '2026-11-24 08:14:20.106176+00', 'Sandbox', NULL, true, '2026-11-24 08:14:20.106176+00', 'purchase:c-1', 'consumable', 'PURCHASED', NULL, NULL, NULL, false, '2026-11-27 08:14:20.118199+00', 'refunded by Apple', NULL, NULL, NULL, NULL, NULL, NULL, 'apple', NULL);
INSERT INTO receiptq.grants VALUES ('f-1', 'f-1', 5, 'carol', 'com.example.pro', 1, '2026-11-25 08:14:20.106176+00', 'Production', NULL, true, '2026-11-25 08:14:20.106176+00', 'family:purchase:f-1', 'non_consumable', 'FAMILY_SHARED', NULL, NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'apple', NULL);
INSERT INTO receiptq.grants VALUES ('b-1', 'b-1', 6, 'bob', 'com.example.monthly', 1, '2026-11-26 08:14:20.106176+00', 'Production', 'o-bob', false, '2026-11-26 08:14:20.106176+00', 'period:w-9', 'auto_renewable', 'PURCHASED', 'w-9', '2026-12-26 08:14:20.106176+00', NULL, false, NULL, NULL, 'bbbbbbbb-0000-4000-8000-000000000002', NULL, NULL, NULL, NULL, NULL, 'apple', NULL);
INSERT INTO receiptq.grants VALUES ('s-3', 's-1', 7, 'eve', 'com.example.monthly', 1, '2026-11-27 08:14:20.106176+00', 'Production', NULL, true, '2026-11-28 07:14:20.106176+00', 'period:w-3', 'auto_renewable', 'PURCHASED', 'w-3', '2026-12-27 08:14:20.106176+00', NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'apple', NULL);


--
-- Data for Name: history_syncs; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.history_syncs VALUES ('s-1', 'Production', NULL, 'first_sighting', 'queued', '2026-11-28 08:14:20.106176+00', NULL, NULL, 0, NULL, 0, 0, '2026-11-28 08:14:20.106176+00', NULL, NULL, NULL);
INSERT INTO receiptq.history_syncs VALUES ('b-1', 'Production', NULL, 'first_sighting', 'queued', '2026-11-28 08:14:20.106176+00', NULL, NULL, 0, NULL, 0, 0, '2026-11-28 08:14:20.106176+00', NULL, NULL, NULL);


--
-- Data for Name: jobs; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.jobs OVERRIDING SYSTEM VALUE VALUES (1, 'cmVjZWlwdC0s-1', DEFAULT, 's-1', 'alice', 'com.example.monthly', NULL, 'granted', 1, '2026-11-28 08:14:20.134141+00', NULL, NULL, 0, NULL, NULL, NULL, '2026-11-28 08:14:20.134141+00', '2026-11-28 08:14:20.134141+00', '2026-09-27 08:14:20.106176+00', 0, NULL, 'period:w-1', NULL, 'receipt', NULL, NULL, false, NULL, NULL);
INSERT INTO receiptq.jobs OVERRIDING SYSTEM VALUE VALUES (2, 'cmVjZWlwdC0n-1', DEFAULT, 'n-1', 'alice', 'com.example.pro', NULL, 'granted', 1, '2026-11-28 08:14:20.134141+00', NULL, NULL, 0, NULL, NULL, NULL, '2026-11-28 08:14:20.134141+00', '2026-11-28 08:14:20.134141+00', '2026-11-18 08:14:20.106176+00', 0, NULL, 'purchase:n-1', NULL, 'receipt', NULL, NULL, false, NULL, NULL);
INSERT INTO receiptq.jobs OVERRIDING SYSTEM VALUE VALUES (3, 'cmVjZWlwdC0s-2', DEFAULT, 's-2', 'mallory', 'com.example.monthly', NULL, 'granted', 1, '2026-11-28 08:14:20.134141+00', NULL, NULL, 0, NULL, NULL, NULL, '2026-11-28 08:14:20.134141+00', '2026-11-28 08:14:20.134141+00', '2026-11-23 08:14:20.106176+00', 0, NULL, 'period:w-2', NULL, 'receipt', NULL, NULL, false, NULL, NULL);
INSERT INTO receiptq.jobs OVERRIDING SYSTEM VALUE VALUES (4, 'cmVjZWlwdC0c-1', DEFAULT, 'c-1', 'alice', 'com.example.coins', NULL, 'granted', 1, '2026-11-28 08:14:20.134141+00', NULL, NULL, 0, NULL, NULL, NULL, '2026-11-28 08:14:20.134141+00', '2026-11-28 08:14:20.134141+00', '2026-11-24 08:14:20.106176+00', 0, NULL, 'purchase:c-1', NULL, 'receipt', NULL, NULL, false, NULL, NULL);
INSERT INTO receiptq.jobs OVERRIDING SYSTEM VALUE VALUES (5, 'cmVjZWlwdC0f-1', DEFAULT, 'f-1', 'carol', 'com.example.pro', NULL, 'granted', 1, '2026-11-28 08:14:20.134141+00', NULL, NULL, 0, NULL, NULL, NULL, '2026-11-28 08:14:20.134141+00', '2026-11-28 08:14:20.134141+00', '2026-11-25 08:14:20.106176+00', 0, NULL, 'family:purchase:f-1', NULL, 'receipt', NULL, NULL, false, NULL, NULL);
INSERT INTO receiptq.jobs OVERRIDING SYSTEM VALUE VALUES (6, 'cmVjZWlwdC0b-1', DEFAULT, 'b-1', 'bob', 'com.example.monthly', NULL, 'granted', 1, '2026-11-28 08:14:20.134141+00', NULL, NULL, 0, NULL, NULL, NULL, '2026-11-28 08:14:20.134141+00', '2026-11-28 08:14:20.134141+00', '2026-11-26 08:14:20.106176+00', 0, NULL, 'period:w-9', NULL, 'receipt', NULL, NULL, false, NULL, NULL);
INSERT INTO receiptq.jobs OVERRIDING SYSTEM VALUE VALUES (7, 'cmVjZWlwdC0s-3', DEFAULT, 's-3', 'eve', 'com.example.monthly', NULL, 'granted', 1, '2026-11-28 08:14:20.134141+00', NULL, NULL, 0, NULL, NULL, NULL, '2026-11-28 08:14:20.134141+00', '2026-11-28 08:14:20.134141+00', '2026-11-28 07:14:20.106176+00', 0, NULL, 'period:w-3', NULL, 'receipt', NULL, NULL, false, NULL, NULL);
INSERT INTO receiptq.jobs OVERRIDING SYSTEM VALUE VALUES (8, 'cmVjZWlwdC1wZW5kaW5n', DEFAULT, 'p-1', 'frank', 'com.example.coins', NULL, 'queued', 2, '2026-11-28 08:19:20.138345+00', NULL, NULL, NULL, NULL, NULL, NULL, '2026-11-28 08:14:20.138345+00', '2026-11-28 08:14:20.138345+00', NULL, 0, NULL, NULL, NULL, 'receipt', NULL, NULL, false, NULL, NULL);
INSERT INTO receiptq.jobs OVERRIDING SYSTEM VALUE VALUES (9, 'cmVjZWlwdC1mYWlsZWQ=', DEFAULT, 'x-1', 'grace', 'com.example.coins', NULL, 'failed', 10, '2026-11-28 08:14:20.142139+00', NULL, NULL, NULL, NULL, NULL, 'gave up after 10 attempts; last error: HTTP 503', '2026-11-28 08:14:20.142139+00', '2026-11-28 08:14:20.142139+00', '2026-11-28 08:14:20.142139+00', 0, NULL, NULL, NULL, 'receipt', NULL, NULL, false, NULL, NULL);
INSERT INTO receiptq.jobs OVERRIDING SYSTEM VALUE VALUES (10, 'cmVjZWlwdC1sZWFzZWQ=', DEFAULT, 'l-1', 'heidi', 'com.example.coins', NULL, 'verifying', 1, '2026-11-28 08:14:20.146185+00', 'worker-gone', '2026-11-28 08:13:20.146185+00', NULL, NULL, NULL, NULL, '2026-11-28 08:14:20.146185+00', '2026-11-28 08:14:20.146185+00', NULL, 0, NULL, NULL, NULL, 'receipt', NULL, NULL, false, NULL, NULL);


--
-- Data for Name: notification_recovery; Type: TABLE DATA; Schema: receiptq; Owner: -
--



--
-- Data for Name: notifications; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.notifications VALUES ('11111111-1111-4111-8111-111111111111', 'DID_RENEW', NULL, 'Production', '2026-11-27 08:14:20.158139+00', 's-1', 's-3', 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', 'endpoint', 'applied', 0, '2026-11-28 08:14:20.158139+00', NULL, NULL, NULL, 'purchase s-3 queued for its user', '2026-11-28 08:14:20.158139+00', '2026-11-27 08:14:20.158139+00');
INSERT INTO receiptq.notifications VALUES ('22222222-2222-4222-8222-222222222222', 'REFUND', NULL, 'Production', '2026-11-28 08:09:20.158139+00', 'n-1', 'n-1', 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', 'endpoint', 'queued', 0, '2026-11-28 08:14:20.158139+00', NULL, NULL, NULL, NULL, '2026-11-28 08:14:20.158139+00', NULL);


--
-- Data for Name: orders; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.orders VALUES ('o-pending', 'alice', 'com.example.pro', 'pending', '2026-11-28 08:14:20.102558+00', NULL, 'aaaaaaaa-0000-4000-8000-000000000001');
INSERT INTO receiptq.orders VALUES ('o-bob', 'bob', 'com.example.monthly', 'fulfilled', '2026-11-28 08:14:20.102558+00', '2026-11-26 08:14:20.102558+00', 'bbbbbbbb-0000-4000-8000-000000000002');


--
-- Data for Name: products; Type: TABLE DATA; Schema: receiptq; Owner: -
--



--
-- Data for Name: receipt_submissions; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.receipt_submissions VALUES ('\xee070a00ad850f1ce7ea5908a922e8baf1bc1a7ff7f652b2606a6f8b539d96d5', 's-1', 'alice', 1);
INSERT INTO receiptq.receipt_submissions VALUES ('\x9c2d30e567abf3ebe989404fa344fc968fc3ab2b281444dcb8e13d58e35860bf', 'n-1', 'alice', 2);
INSERT INTO receiptq.receipt_submissions VALUES ('\xb61904168c34c2d004da5e6029aac02cf3c4a29c7329598a5fcea064a845075d', 's-2', 'mallory', 3);
INSERT INTO receiptq.receipt_submissions VALUES ('\x2826e95a5f6ca384da8e1163e0e72edf9c5c2f3c08a1e6ff105b0e344ca3aa3c', 'c-1', 'alice', 4);
INSERT INTO receiptq.receipt_submissions VALUES ('\xe2c892b3345430d4dfb9740566449ba0e1304df57e74d212d6bd4ed7d17e2d08', 'f-1', 'carol', 5);
INSERT INTO receiptq.receipt_submissions VALUES ('\x7111c0aa97418699b0118785d2c49d5d9bd9f0eb4e6c7c7b96c04760a6266540', 'b-1', 'bob', 6);
INSERT INTO receiptq.receipt_submissions VALUES ('\xfb506823cd1df8aaf406836be20cf5081bab71cc0d5fcc4414e1b7fbd2ea4fa6', 's-3', 'eve', 7);
INSERT INTO receiptq.receipt_submissions VALUES ('\x46b4882b5c0d31258cb7b2023dd7a988aaf55738310ae8bb80b0a53e684509a9', 'p-1', 'frank', 8);
INSERT INTO receiptq.receipt_submissions VALUES ('\xfe5dda1dab6dd2b2c1e9e4cc38670fbaba68502945c5938c3abb2f11ad4bfec9', 'x-1', 'grace', 9);
INSERT INTO receiptq.receipt_submissions VALUES ('\x64fd209f4f85c8ee47658a216414e83ce1dfe828048352cb755af1e5b74e4025', 'l-1', 'heidi', 10);


--
-- Data for Name: revocations; Type: TABLE DATA; Schema: receiptq; Owner: -
--



--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.schema_migrations VALUES (1, '0001_queue.sql', '0d364aa3c0cf2acde79218974368377140a5896f132a7d6327a3e813412dc226', '2026-11-28 08:13:56.641222+00');
INSERT INTO receiptq.schema_migrations VALUES (2, '0002_ops_views.sql', '26d7cd65824cf71296352039d40dcd88bd89c430780207dacae012b2dd634a3b', '2026-11-28 08:13:56.730376+00');
INSERT INTO receiptq.schema_migrations VALUES (3, '0003_record_grant.sql', '13c1e5e85e768826adc4e18161c601dd2980a7536e8e0767e7f20e1fad1c9381', '2026-11-28 08:13:56.746313+00');
INSERT INTO receiptq.schema_migrations VALUES (4, '0004_failures_view_indexes.sql', 'ce5e1496b0446ab4eb577ebf0c75af708ec13cfee992e2598214bf2550cc1a2a', '2026-11-28 08:13:56.754037+00');
INSERT INTO receiptq.schema_migrations VALUES (5, '0005_bounded_answers.sql', 'a5e8cee2bd4634c9fce2ef4e8ec6e676d0d788e702a1bffb491053b55b28f654', '2026-11-28 08:13:56.76219+00');
INSERT INTO receiptq.schema_migrations VALUES (6, '0006_receipt_storage_external.sql', '7d2547ab19b18a3050562b687aa0a9a1218ed0fd282b73b2a663af9eba03d660', '2026-11-28 08:13:56.766233+00');
INSERT INTO receiptq.schema_migrations VALUES (7, '0007_redrive.sql', '0c7510b059528a568eda4f55130761dc95a7cd1b5127f5ef25607693e45ea42c', '2026-11-28 08:13:56.774122+00');
INSERT INTO receiptq.schema_migrations VALUES (8, '0008_verdict_policy.sql', 'd5efb89340a68e6d63f66ca1b29804694039bda062a86a3620855eb7154ee8e1', '2026-11-28 08:13:56.778241+00');
INSERT INTO receiptq.schema_migrations VALUES (9, '0009_events.sql', 'fd6d8a4411dfe52241180900201d21ff9888aa87656c75b502ac27c378520d42', '2026-11-28 08:13:56.838412+00');
INSERT INTO receiptq.schema_migrations VALUES (10, '0010_app_store_server_api.sql', 'e4c412c35452cc4660118e2dd3d79a887189b2a87a4412b842d96c3ac8ca5294', '2026-11-28 08:13:56.906339+00');
INSERT INTO receiptq.schema_migrations VALUES (11, '0011_roles_and_health.sql', '123fe93efe721622f85113f181d1c1f381aca2270f434a2094c746dec7516a10', '2026-11-28 08:13:56.930349+00');
INSERT INTO receiptq.schema_migrations VALUES (12, '0012_transactions.sql', '0b1b05eac63279a6346e4f7a4b5af87a0d9665ba966f9a8c5bf2cf5ca6fd4797', '2026-11-28 08:13:56.958196+00');
INSERT INTO receiptq.schema_migrations VALUES (13, '0013_notifications.sql', '3c4d838551633c552533e75bb9a72e490c5525b83e8b69958cb62f788bd72530', '2026-11-28 08:13:57.078516+00');
INSERT INTO receiptq.schema_migrations VALUES (14, '0014_ledger_lookup_by_index.sql', '72e1f5b710b9dfd86e4c8ed782eabd4544b3d38d7bd57d71f4bc07141307dda0', '2026-11-28 08:13:57.178378+00');
INSERT INTO receiptq.schema_migrations VALUES (15, '0015_ownership.sql', 'ac1b45c779a046514654af1eb8a2e7219343bcb18e3ae8a130201fdf66956043', '2026-11-28 08:13:57.181499+00');
INSERT INTO receiptq.schema_migrations VALUES (16, '0016_notifications_kept.sql', '820cb0d6665f8039eed79f9188d2b61c6e53d450e2328b90d45d4131b08053e8', '2026-11-28 08:13:57.234332+00');
INSERT INTO receiptq.schema_migrations VALUES (17, '0017_test_roots_marked.sql', '6022e31dbe0ed6c97a1933be7b526788b40d0f0e63f27b4a48f7c8f4269f3866', '2026-11-28 08:13:57.246269+00');
INSERT INTO receiptq.schema_migrations VALUES (20, '0020_subscription_model.sql', '2254e7b7f3661834b3fff340e23a52607c65be5b97a775ae63a020491250771c', '2026-11-28 08:13:57.250135+00');
INSERT INTO receiptq.schema_migrations VALUES (21, '0021_repeatables_readable.sql', '084addddaadcea230850ae1eddc50faf4f76fe56d0e6da76bfc0a88174f6f277', '2026-11-28 08:13:57.266281+00');
INSERT INTO receiptq.schema_migrations VALUES (22, '0022_trusted_claim_tokens.sql', '615cce1c2a19c647c51e851e148f88533a1bba3e78b609d71cfb1b886d31fdf8', '2026-11-28 08:13:57.270171+00');
INSERT INTO receiptq.schema_migrations VALUES (23, '0023_request_ids.sql', '3657a533b1b7b9835403469b65760931025309ab7d88a64eaf60456f7258442d', '2026-11-28 08:13:57.282152+00');
INSERT INTO receiptq.schema_migrations VALUES (24, '0024_support_and_fleet_control.sql', 'd0f6aff7f06f8695fda07988424b5a85450faeba9f12eb835ba1497ff4e695fd', '2026-11-28 08:13:57.286143+00');
INSERT INTO receiptq.schema_migrations VALUES (26, '0026_history_syncs.sql', '706b4a59716e6e00ea3455416ad3c7e74be65fd4f42b78c991ea135494df7c9c', '2026-11-28 08:13:57.362334+00');
INSERT INTO receiptq.schema_migrations VALUES (27, '0027_subscription_reconciliation.sql', 'f4d7d0fd80f5efc4c137679f7aeef9bbd008c722c64d8f9f695e391d6095bd16', '2026-11-28 08:13:57.386182+00');
INSERT INTO receiptq.schema_migrations VALUES (28, '0028_history_sync_ownership_and_refunds.sql', '331cff36a0a41e4211ab3b5d13349c5b39fa612f544c54ae5c4628e58183b270', '2026-11-28 08:13:57.410167+00');
INSERT INTO receiptq.schema_migrations VALUES (29, '0029_submission_fact_sources.sql', 'd56ae3ae3f76b0807d85149096d3a5c38823a264a1df768681a830ab9a26570d', '2026-11-28 08:13:57.414128+00');
INSERT INTO receiptq.schema_migrations VALUES (30, '0030_prune_subscription_corrections.sql', 'ec76f09c2ef41c8eb93d2c609be5552e7a1cab0d1b1d0263f9d00715d860aa8a', '2026-11-28 08:13:57.422255+00');
INSERT INTO receiptq.schema_migrations VALUES (31, '0031_retries_claimed_first.sql', '0aea3f38b37d6dbb4a53eea0943a2f9ca44d91e96a011b7c48bc98c0fabcdeee', '2026-11-28 08:13:57.424534+00');
INSERT INTO receiptq.schema_migrations VALUES (32, '0032_drop_jobs_purchase_key_fkey.sql', 'dd5bfbdf5f5ec60a0acf61ed6900931d7d38707e37e2ac11c23229fdf480076d', '2026-11-28 08:13:57.434166+00');
INSERT INTO receiptq.schema_migrations VALUES (33, '0033_receipt_submissions.sql', '7d916c0d401f6728f9a81d63bd1954a40a3397d8bb92c71c3581d35703774829', '2026-11-28 08:13:57.450033+00');
INSERT INTO receiptq.schema_migrations VALUES (34, '0034_transaction_submissions.sql', 'feea5459dc58da6053cba2436a25cb463395a45ed4fdc84ddfa91834a76378a5', '2026-11-28 08:13:57.466331+00');


--
-- Data for Name: schema_repeatables; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.schema_repeatables VALUES ('functions/append_failed_job_events.sql', '2b1fa48b9291e2c288050442a8e9cc3761c821b8fd04ae18911cb002dec61411', '2026-11-28 08:13:57.486322+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/append_job_events.sql', '1447ad62f6003439d2a1db85672ea82a18d124ef794553117805832cf2270cb0', '2026-11-28 08:13:57.49015+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/check_trusted_claim.sql', '4a0b8c6f7d980a86899cc25d948a6a2c5f29ba8c036e273812fb089759cdcf4a', '2026-11-28 08:13:57.49414+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/create_login.sql', 'feff6baa5bb539f338dff67edb002004fc3428de9b5c00b8dd92a3aa4503a250', '2026-11-28 08:13:57.498153+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/fan_out_events.sql', 'dbeaa2238374ff15d7fc2d7fdd75a21be8dbe35f3f1233fd8b6e5801730e2019', '2026-11-28 08:13:57.502147+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/guard_history_sync_owner.sql', 'e1b6a09108dc138d12d958d656cb3ac6c3ed3e7869b8f577f73642396c25c01d', '2026-11-28 08:13:57.506161+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/guard_job_state.sql', '4395cf5df4215001c9497854a1d954ebe335782777696c2403ed28c82e1accd5', '2026-11-28 08:13:57.510162+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/notify_jobs_enqueued.sql', '0fa8838ef7083d90364a81f1e77ff1af158c72a8015bb1b9bf58b2eee69de8b8', '2026-11-28 08:13:57.522252+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/notify_jobs_finished.sql', '87faa6ae68327dc694e44a8ec370dd35e743f6a26200e54810236bfb022a9d40', '2026-11-28 08:13:57.52617+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/notify_notifications_received.sql', '0b4777c8d07dc10634c8dee3c5103d97be074c9bbbbe5ee8554a29413d511855', '2026-11-28 08:13:57.530176+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/purchase_key.sql', 'f53b774a0ad80ce64814bd44ae407497491cbfc588475c5b19c1eb9644886617', '2026-11-28 08:13:57.534235+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/queue_first_sighting_sync.sql', 'a67be2375d094eddb0c34b00b0baf531cdf11f5f01c67d83b3ab9f038338bc75', '2026-11-28 08:13:57.536176+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/receipt_digest.sql', 'b947895a87cfba8c168b0fb6c330da547844c8d4aad8471de362ae96e329b3bd', '2026-11-28 08:13:57.53763+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/record_purchase.sql', '0c1485ad9a9851fddffa585057033d2cd9f4feb189e92429f0de1a528870c006', '2026-11-28 08:13:57.55016+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/refuse_audit_change.sql', 'afbbb90d8a12aa89ea0b31b0f20ee92aa30d00e18f92135e15a4403cba6b2648', '2026-11-28 08:13:57.554108+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/schedule_reconciliation.sql', '35aa15fc5641c72a159acee18805fc0d8fde67324d8dec231876289ad590fe88', '2026-11-28 08:13:57.562365+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/support_grant.sql', 'b6f6823475313def3152d02ccd2fca43be1f9cc20ef1f1eb8c3c904e45019515', '2026-11-28 08:13:57.566143+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/support_revoke.sql', '99c4d54c9e4a8c5c392ef45ac0ffa881d4af031ae81e2a2c0e884da44ff86797', '2026-11-28 08:13:57.570205+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/support_transfer.sql', '13dfda72f3a66f6c048355a52fcb4211730ea5390ca0ee5e6aa2924d2309e114', '2026-11-28 08:13:57.574163+00');
INSERT INTO receiptq.schema_repeatables VALUES ('functions/verdict.sql', '787932ba6c629b0442e9dab0ef60f229cbd301e0e43e62ad75ece965b132a55c', '2026-11-28 08:13:57.57814+00');
INSERT INTO receiptq.schema_repeatables VALUES ('views/api_rate_budget_status.sql', 'c9fff9386b812fe22efbff89c4ce1815f0db96c5a11f2d891f1ccbb3ff8e2251', '2026-11-28 08:13:57.582211+00');
INSERT INTO receiptq.schema_repeatables VALUES ('views/claimable_work.sql', 'ff6694243dc93f05c354fa619381125f991fc184df72b97a870605c3f9320e4a', '2026-11-28 08:13:57.586134+00');
INSERT INTO receiptq.schema_repeatables VALUES ('views/failures.sql', '0be70fe0a7ee092757148f00d72ea734488974d1ed31a298a47431b66077293d', '2026-11-28 08:13:57.59421+00');
INSERT INTO receiptq.schema_repeatables VALUES ('views/flagged_grants.sql', '7947bdeeac7b616b48c80f0fa95e8d114539e0ea34609c4d52500c6afde9a994', '2026-11-28 08:13:57.598116+00');
INSERT INTO receiptq.schema_repeatables VALUES ('views/live_workers.sql', '5e2cec53a72c9a1bcaffdcf75efc614eeef65559f00839584b85872ea134b6ac', '2026-11-28 08:13:57.60212+00');
INSERT INTO receiptq.schema_repeatables VALUES ('views/notification_health.sql', '1a8ff8f366117e47cb9ce9dbafd8e897c82fdbe6efc85030d60257a24b17d474', '2026-11-28 08:13:57.606154+00');
INSERT INTO receiptq.schema_repeatables VALUES ('views/outcomes.sql', '9fecb8b98e902b0bd4936b6aa4b8aeba100c9702d8b1bf111ac3319eec15442f', '2026-11-28 08:13:57.614395+00');
INSERT INTO receiptq.schema_repeatables VALUES ('views/ownership_refusals.sql', '5dfea7faac9888e9d73375fc5051ae84ee9d5f9e5387265c8eac149d2ab1472a', '2026-11-28 08:13:57.626231+00');
INSERT INTO receiptq.schema_repeatables VALUES ('views/queue_depth.sql', '0118c08f4795031b8f99889f5db583a7a22035ea7882f0edb3f9312c461014e3', '2026-11-28 08:13:57.630135+00');
INSERT INTO receiptq.schema_repeatables VALUES ('views/queue_health.sql', 'f0fec361db28399f999fbd80149e9a0b4b01af9903a79af8802911fb628ad38d', '2026-11-28 08:13:57.634108+00');
INSERT INTO receiptq.schema_repeatables VALUES ('views/reconciliation_health.sql', '19569168fccdd942748cd88f06af90eed1b1d8fdea0ea19429668ae0f1c5facf', '2026-11-28 08:13:57.638098+00');
INSERT INTO receiptq.schema_repeatables VALUES ('views/webhook_health.sql', 'f7ba3e6a259ad51d1c00a6f15153d4f1973362e8018762a54ce35a75e941eec5', '2026-11-28 08:13:57.646293+00');


--
-- Data for Name: subscription_corrections; Type: TABLE DATA; Schema: receiptq; Owner: -
--



--
-- Data for Name: subscriptions; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.subscriptions VALUES ('s-1', 'Production', 'eve', 'com.example.monthly', 1, 1, '2026-12-27 08:14:20.130293+00', NULL, NULL, NULL, '2026-11-27 08:14:20.130293+00', '2026-11-28 08:14:20.130293+00', NULL, 'active', NULL, 's-3', NULL, NULL, NULL, NULL, NULL, NULL, NULL, '2026-11-28 09:14:20.130293+00', NULL);


--
-- Data for Name: support_audit; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.support_audit OVERRIDING SYSTEM VALUE VALUES (1, '2026-11-28 08:14:20.122142+00', 'ops', 'receiptq', 'grant.manual', 'user:dave', 'outage goodwill', NULL, '{"price": null, "job_id": -1, "user_id": "dave", "currency": null, "order_id": null, "quantity": 1, "manual_by": "ops", "unmatched": false, "granted_at": "2026-11-28T08:14:20.122142+00:00", "product_id": "com.example.pro", "revoked_at": null, "storefront": null, "environment": "Production", "expires_date": null, "product_type": "non_consumable", "purchase_key": "manual:ticket-1", "signed_under": "apple", "purchase_date": null, "order_mismatch": false, "ownership_type": "PURCHASED", "transaction_id": "manual:ticket-1", "app_account_token": null, "revocation_reason": null, "claimed_product_id": null, "revocation_signed_at": null, "web_order_line_item_id": null, "original_transaction_id": "manual:ticket-1", "revoked_by_notification": null}');


--
-- Data for Name: transaction_submissions; Type: TABLE DATA; Schema: receiptq; Owner: -
--



--
-- Data for Name: trusted_claim_tokens; Type: TABLE DATA; Schema: receiptq; Owner: -
--



--
-- Data for Name: webhook_endpoints; Type: TABLE DATA; Schema: receiptq; Owner: -
--

INSERT INTO receiptq.webhook_endpoints VALUES ('backend', 'https://backend.example/webhooks', '{whsec_ZmFrZS1zZWNyZXQtZm9yLWZpeHR1cmU=}', NULL, true, '2026-11-28 08:14:20.162129+00', '2026-11-28 08:14:20.162129+00');


--
-- Data for Name: worker_heartbeats; Type: TABLE DATA; Schema: receiptq; Owner: -
--



--
-- Name: events_sequence_seq; Type: SEQUENCE SET; Schema: receiptq; Owner: -
--

SELECT pg_catalog.setval('receiptq.events_sequence_seq', 8, true);


--
-- Name: jobs_id_seq; Type: SEQUENCE SET; Schema: receiptq; Owner: -
--

SELECT pg_catalog.setval('receiptq.jobs_id_seq', 10, true);


--
-- Name: manual_grant_ids; Type: SEQUENCE SET; Schema: receiptq; Owner: -
--

SELECT pg_catalog.setval('receiptq.manual_grant_ids', 1, true);


--
-- Name: subscription_corrections_id_seq; Type: SEQUENCE SET; Schema: receiptq; Owner: -
--

SELECT pg_catalog.setval('receiptq.subscription_corrections_id_seq', 1, false);


--
-- Name: support_audit_id_seq; Type: SEQUENCE SET; Schema: receiptq; Owner: -
--

SELECT pg_catalog.setval('receiptq.support_audit_id_seq', 1, true);


--
-- Name: api_rate_budgets api_rate_budgets_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.api_rate_budgets
    ADD CONSTRAINT api_rate_budgets_pkey PRIMARY KEY (bundle_id, endpoint, environment);


--
-- Name: consumption_consents consumption_consents_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.consumption_consents
    ADD CONSTRAINT consumption_consents_pkey PRIMARY KEY (user_id);


--
-- Name: consumption_requests consumption_requests_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.consumption_requests
    ADD CONSTRAINT consumption_requests_pkey PRIMARY KEY (notification_uuid);


--
-- Name: deliveries deliveries_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.deliveries
    ADD CONSTRAINT deliveries_pkey PRIMARY KEY (endpoint_id, event_sequence);


--
-- Name: events events_id_unique; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.events
    ADD CONSTRAINT events_id_unique UNIQUE (id);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (sequence);


--
-- Name: fleet_control fleet_control_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.fleet_control
    ADD CONSTRAINT fleet_control_pkey PRIMARY KEY (singleton);


--
-- Name: grants grants_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.grants
    ADD CONSTRAINT grants_pkey PRIMARY KEY (purchase_key);


--
-- Name: history_syncs history_syncs_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.history_syncs
    ADD CONSTRAINT history_syncs_pkey PRIMARY KEY (original_transaction_id, environment);


--
-- Name: jobs jobs_grant_check; Type: CHECK CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE receiptq.jobs
    ADD CONSTRAINT jobs_grant_check CHECK (((state <> ALL (ARRAY['granted'::text, 'already_granted'::text])) OR (purchase_key IS NOT NULL))) NOT VALID;


--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);


--
-- Name: notification_recovery notification_recovery_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.notification_recovery
    ADD CONSTRAINT notification_recovery_pkey PRIMARY KEY (environment);


--
-- Name: notifications notifications_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.notifications
    ADD CONSTRAINT notifications_pkey PRIMARY KEY (notification_uuid);


--
-- Name: orders orders_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (order_id);


--
-- Name: products products_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.products
    ADD CONSTRAINT products_pkey PRIMARY KEY (product_id);


--
-- Name: receipt_submissions receipt_submissions_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.receipt_submissions
    ADD CONSTRAINT receipt_submissions_pkey PRIMARY KEY (receipt_sha256, transaction_id, user_id);


--
-- Name: revocations revocations_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.revocations
    ADD CONSTRAINT revocations_pkey PRIMARY KEY (transaction_id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: schema_repeatables schema_repeatables_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.schema_repeatables
    ADD CONSTRAINT schema_repeatables_pkey PRIMARY KEY (name);


--
-- Name: subscription_corrections subscription_corrections_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.subscription_corrections
    ADD CONSTRAINT subscription_corrections_pkey PRIMARY KEY (id);


--
-- Name: subscriptions subscriptions_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.subscriptions
    ADD CONSTRAINT subscriptions_pkey PRIMARY KEY (original_transaction_id, environment);


--
-- Name: support_audit support_audit_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.support_audit
    ADD CONSTRAINT support_audit_pkey PRIMARY KEY (id);


--
-- Name: transaction_submissions transaction_submissions_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.transaction_submissions
    ADD CONSTRAINT transaction_submissions_pkey PRIMARY KEY (kind, transaction_id, user_id, environment);


--
-- Name: trusted_claim_tokens trusted_claim_tokens_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.trusted_claim_tokens
    ADD CONSTRAINT trusted_claim_tokens_pkey PRIMARY KEY (digest);


--
-- Name: webhook_endpoints webhook_endpoints_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);


--
-- Name: worker_heartbeats worker_heartbeats_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.worker_heartbeats
    ADD CONSTRAINT worker_heartbeats_pkey PRIMARY KEY (worker);


--
-- Name: consumption_requests_lease_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX consumption_requests_lease_idx ON receiptq.consumption_requests USING btree (locked_until) WHERE (state = 'sending'::text);


--
-- Name: consumption_requests_ready_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX consumption_requests_ready_idx ON receiptq.consumption_requests USING btree (run_at) WHERE (state = 'queued'::text);


--
-- Name: deliveries_event_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX deliveries_event_idx ON receiptq.deliveries USING btree (event_sequence);


--
-- Name: deliveries_failed_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX deliveries_failed_idx ON receiptq.deliveries USING btree (endpoint_id, created_at) WHERE (state = 'failed'::text);


--
-- Name: deliveries_lease_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX deliveries_lease_idx ON receiptq.deliveries USING btree (locked_until) WHERE (state = 'delivering'::text);


--
-- Name: deliveries_pending_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX deliveries_pending_idx ON receiptq.deliveries USING btree (endpoint_id, user_id, event_sequence) WHERE (state = ANY (ARRAY['queued'::text, 'delivering'::text]));


--
-- Name: deliveries_user_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX deliveries_user_idx ON receiptq.deliveries USING btree (user_id, created_at);


--
-- Name: events_created_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX events_created_idx ON receiptq.events USING btree (created_at);


--
-- Name: grants_entitlement_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX grants_entitlement_idx ON receiptq.grants USING btree (user_id, product_id) WHERE ((revoked_at IS NULL) AND (product_type = ANY (ARRAY['non_consumable'::text, 'non_renewing'::text, 'auto_renewable'::text])));


--
-- Name: grants_original_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX grants_original_idx ON receiptq.grants USING btree (original_transaction_id);


--
-- Name: grants_transaction_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX grants_transaction_idx ON receiptq.grants USING btree (transaction_id);


--
-- Name: grants_unmatched_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX grants_unmatched_idx ON receiptq.grants USING btree (granted_at) WHERE unmatched;


--
-- Name: grants_user_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX grants_user_idx ON receiptq.grants USING btree (user_id, granted_at, purchase_key);


--
-- Name: history_syncs_lease_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX history_syncs_lease_idx ON receiptq.history_syncs USING btree (locked_until) WHERE (state = 'syncing'::text);


--
-- Name: history_syncs_ready_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX history_syncs_ready_idx ON receiptq.history_syncs USING btree (run_at) WHERE (state = 'queued'::text);


--
-- Name: jobs_failed_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX jobs_failed_idx ON receiptq.jobs USING btree (finished_at) WHERE (state = ANY (ARRAY['rejected'::text, 'failed'::text]));


--
-- Name: jobs_finished_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX jobs_finished_idx ON receiptq.jobs USING btree (finished_at, state) WHERE (state = ANY (ARRAY['granted'::text, 'already_granted'::text, 'rejected'::text, 'failed'::text, 'resubmit'::text, 'owned_elsewhere'::text]));


--
-- Name: jobs_lease_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX jobs_lease_idx ON receiptq.jobs USING btree (locked_until) WHERE (state = 'verifying'::text);


--
-- Name: jobs_ready_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX jobs_ready_idx ON receiptq.jobs USING btree (run_at, id) WHERE (state = 'queued'::text);


--
-- Name: jobs_ready_kind_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX jobs_ready_kind_idx ON receiptq.jobs USING btree (kind, run_at, id) WHERE (state = 'queued'::text);


--
-- Name: jobs_resubmit_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX jobs_resubmit_idx ON receiptq.jobs USING btree (transaction_id) WHERE (state = 'resubmit'::text);


--
-- Name: jobs_retry_ready_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX jobs_retry_ready_idx ON receiptq.jobs USING btree (kind, run_at, id) WHERE ((state = 'queued'::text) AND (attempts > 0));


--
-- Name: jobs_timed_out_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX jobs_timed_out_idx ON receiptq.jobs USING btree (run_at) WHERE (state = 'timed_out'::text);


--
-- Name: jobs_unsettled_transaction_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX jobs_unsettled_transaction_idx ON receiptq.jobs USING btree (transaction_id) WHERE (state <> ALL (ARRAY['verifying'::text, 'granted'::text]));


--
-- Name: jobs_user_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX jobs_user_idx ON receiptq.jobs USING btree (user_id, created_at);


--
-- Name: notifications_lease_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX notifications_lease_idx ON receiptq.notifications USING btree (locked_until) WHERE (state = 'applying'::text);


--
-- Name: notifications_open_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX notifications_open_idx ON receiptq.notifications USING btree (original_transaction_id, signed_date, notification_uuid) WHERE (state = ANY (ARRAY['queued'::text, 'applying'::text]));


--
-- Name: notifications_original_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX notifications_original_idx ON receiptq.notifications USING btree (original_transaction_id, received_at);


--
-- Name: notifications_quarantined_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX notifications_quarantined_idx ON receiptq.notifications USING btree (received_at) WHERE (state = 'quarantined'::text);


--
-- Name: notifications_ready_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX notifications_ready_idx ON receiptq.notifications USING btree (signed_date, notification_uuid) WHERE (state = 'queued'::text);


--
-- Name: notifications_received_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX notifications_received_idx ON receiptq.notifications USING btree (received_at);


--
-- Name: orders_app_account_token_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE UNIQUE INDEX orders_app_account_token_idx ON receiptq.orders USING btree (app_account_token) WHERE (app_account_token IS NOT NULL);


--
-- Name: orders_pending_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX orders_pending_idx ON receiptq.orders USING btree (user_id, product_id, created_at) WHERE (state = 'pending'::text);


--
-- Name: orders_user_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX orders_user_idx ON receiptq.orders USING btree (user_id, created_at);


--
-- Name: products_group_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX products_group_idx ON receiptq.products USING btree (subscription_group) WHERE (subscription_group IS NOT NULL);


--
-- Name: subscription_corrections_time_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX subscription_corrections_time_idx ON receiptq.subscription_corrections USING btree (corrected_at);


--
-- Name: subscriptions_reconcile_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX subscriptions_reconcile_idx ON receiptq.subscriptions USING btree (reconcile_at);


--
-- Name: subscriptions_user_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX subscriptions_user_idx ON receiptq.subscriptions USING btree (user_id) WHERE (user_id IS NOT NULL);


--
-- Name: subscriptions_user_state_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX subscriptions_user_state_idx ON receiptq.subscriptions USING btree (user_id, state) WHERE (user_id IS NOT NULL);


--
-- Name: support_audit_at_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX support_audit_at_idx ON receiptq.support_audit USING btree (at);


--
-- Name: support_audit_subject_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX support_audit_subject_idx ON receiptq.support_audit USING btree (subject, at);


--
-- Name: events events_fan_out; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER events_fan_out AFTER INSERT ON receiptq.events REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION receiptq.fan_out_events();


--
-- Name: grants grants_first_sighting; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER grants_first_sighting AFTER INSERT ON receiptq.grants FOR EACH ROW WHEN ((new.product_type = 'auto_renewable'::text)) EXECUTE FUNCTION receiptq.queue_first_sighting_sync();


--
-- Name: history_syncs history_syncs_guard_owner; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER history_syncs_guard_owner BEFORE INSERT OR UPDATE OF user_id, reason ON receiptq.history_syncs FOR EACH ROW WHEN (((new.reason = 'backfill'::text) AND (new.user_id IS NOT NULL))) EXECUTE FUNCTION receiptq.guard_history_sync_owner();


--
-- Name: jobs jobs_check_trusted_claim; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER jobs_check_trusted_claim BEFORE INSERT ON receiptq.jobs FOR EACH ROW WHEN ((new.trusted_claim OR (new.claim_proof IS NOT NULL))) EXECUTE FUNCTION receiptq.check_trusted_claim();


--
-- Name: jobs jobs_guard_state; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER jobs_guard_state AFTER UPDATE OF state ON receiptq.jobs FOR EACH ROW WHEN (((old.state IS DISTINCT FROM new.state) AND ((old.state = ANY (ARRAY['granted'::text, 'already_granted'::text, 'rejected'::text, 'owned_elsewhere'::text, 'resubmit'::text])) OR (new.state = ANY (ARRAY['granted'::text, 'already_granted'::text, 'rejected'::text, 'owned_elsewhere'::text, 'resubmit'::text]))))) EXECUTE FUNCTION receiptq.guard_job_state();


--
-- Name: jobs jobs_notify_enqueued; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER jobs_notify_enqueued AFTER INSERT ON receiptq.jobs REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION receiptq.notify_jobs_enqueued();


--
-- Name: jobs jobs_notify_finished; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER jobs_notify_finished AFTER UPDATE ON receiptq.jobs REFERENCING OLD TABLE AS before NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION receiptq.notify_jobs_finished();


--
-- Name: notifications notifications_notify_received; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER notifications_notify_received AFTER INSERT ON receiptq.notifications REFERENCING NEW TABLE AS received FOR EACH STATEMENT EXECUTE FUNCTION receiptq.notify_notifications_received();


--
-- Name: subscriptions subscriptions_schedule_reconciliation; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER subscriptions_schedule_reconciliation BEFORE INSERT OR UPDATE OF model ON receiptq.subscriptions FOR EACH ROW EXECUTE FUNCTION receiptq.schedule_reconciliation();


--
-- Name: support_audit support_audit_append_only; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER support_audit_append_only BEFORE DELETE OR UPDATE ON receiptq.support_audit FOR EACH ROW EXECUTE FUNCTION receiptq.refuse_audit_change();


--
-- Name: support_audit support_audit_no_truncate; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER support_audit_no_truncate BEFORE TRUNCATE ON receiptq.support_audit FOR EACH STATEMENT EXECUTE FUNCTION receiptq.refuse_audit_change();


--
-- Name: deliveries deliveries_endpoint_id_fkey; Type: FK CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.deliveries
    ADD CONSTRAINT deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES receiptq.webhook_endpoints(id) ON DELETE CASCADE;


--
-- Name: deliveries deliveries_event_sequence_fkey; Type: FK CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.deliveries
    ADD CONSTRAINT deliveries_event_sequence_fkey FOREIGN KEY (event_sequence) REFERENCES receiptq.events(sequence) ON DELETE CASCADE;


--
-- Name: grants grants_order_id_fkey; Type: FK CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.grants
    ADD CONSTRAINT grants_order_id_fkey FOREIGN KEY (order_id) REFERENCES receiptq.orders(order_id);


--
-- Name: SCHEMA receiptq; Type: ACL; Schema: -; Owner: -
--

GRANT USAGE ON SCHEMA receiptq TO receiptq_api;
GRANT USAGE ON SCHEMA receiptq TO receiptq_worker;
GRANT USAGE ON SCHEMA receiptq TO receiptq_scheduler;
GRANT USAGE ON SCHEMA receiptq TO receiptq_readonly;
GRANT USAGE ON SCHEMA receiptq TO receiptq_support;


--
-- Name: FUNCTION append_failed_job_events(p_jobs bigint[]); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.append_failed_job_events(p_jobs bigint[]) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.append_failed_job_events(p_jobs bigint[]) TO receiptq_scheduler;
GRANT ALL ON FUNCTION receiptq.append_failed_job_events(p_jobs bigint[]) TO receiptq_support;


--
-- Name: FUNCTION append_job_events(p_jobs bigint[]); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.append_job_events(p_jobs bigint[]) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.append_job_events(p_jobs bigint[]) TO receiptq_worker;


--
-- Name: FUNCTION check_trusted_claim(); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.check_trusted_claim() FROM PUBLIC;


--
-- Name: FUNCTION create_login(p_login text, p_password text, p_role text); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.create_login(p_login text, p_password text, p_role text) FROM PUBLIC;


--
-- Name: FUNCTION fan_out_events(); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.fan_out_events() FROM PUBLIC;


--
-- Name: FUNCTION guard_history_sync_owner(); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.guard_history_sync_owner() FROM PUBLIC;


--
-- Name: FUNCTION guard_job_state(); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.guard_job_state() FROM PUBLIC;


--
-- Name: FUNCTION notify_jobs_enqueued(); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.notify_jobs_enqueued() FROM PUBLIC;


--
-- Name: FUNCTION notify_jobs_finished(); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.notify_jobs_finished() FROM PUBLIC;


--
-- Name: FUNCTION purchase_key(p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_product_type text, p_ownership_type text); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.purchase_key(p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_product_type text, p_ownership_type text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.purchase_key(p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_product_type text, p_ownership_type text) TO receiptq_worker;


--
-- Name: FUNCTION queue_first_sighting_sync(); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.queue_first_sighting_sync() FROM PUBLIC;


--
-- Name: FUNCTION receipt_digest(receipt text); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.receipt_digest(receipt text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.receipt_digest(receipt text) TO receiptq_api;
GRANT ALL ON FUNCTION receiptq.receipt_digest(receipt text) TO receiptq_worker;
GRANT ALL ON FUNCTION receiptq.receipt_digest(receipt text) TO receiptq_scheduler;
GRANT ALL ON FUNCTION receiptq.receipt_digest(receipt text) TO receiptq_support;


--
-- Name: FUNCTION record_purchase(p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamp with time zone, p_expires_date timestamp with time zone, p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text, p_product_type text, p_app_account_token uuid, p_claimed_app_account_token uuid, p_storefront text, p_price bigint, p_currency text, p_proven boolean, p_require_token boolean, OUT result text, OUT purchase_key text, OUT matched_order_id text, OUT unmatched boolean, OUT reason text); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.record_purchase(p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamp with time zone, p_expires_date timestamp with time zone, p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text, p_product_type text, p_app_account_token uuid, p_claimed_app_account_token uuid, p_storefront text, p_price bigint, p_currency text, p_proven boolean, p_require_token boolean, OUT result text, OUT purchase_key text, OUT matched_order_id text, OUT unmatched boolean, OUT reason text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.record_purchase(p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamp with time zone, p_expires_date timestamp with time zone, p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text, p_product_type text, p_app_account_token uuid, p_claimed_app_account_token uuid, p_storefront text, p_price bigint, p_currency text, p_proven boolean, p_require_token boolean, OUT result text, OUT purchase_key text, OUT matched_order_id text, OUT unmatched boolean, OUT reason text) TO receiptq_worker;


--
-- Name: FUNCTION refuse_audit_change(); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.refuse_audit_change() FROM PUBLIC;


--
-- Name: FUNCTION schedule_reconciliation(); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.schedule_reconciliation() FROM PUBLIC;


--
-- Name: FUNCTION support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text, p_product_type text); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text, p_product_type text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text, p_product_type text) TO receiptq_support;


--
-- Name: FUNCTION support_revoke(p_actor text, p_why text, p_purchase_key text); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.support_revoke(p_actor text, p_why text, p_purchase_key text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.support_revoke(p_actor text, p_why text, p_purchase_key text) TO receiptq_support;


--
-- Name: FUNCTION support_transfer(p_actor text, p_why text, p_original_transaction_id text, p_to_user text); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.support_transfer(p_actor text, p_why text, p_original_transaction_id text, p_to_user text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.support_transfer(p_actor text, p_why text, p_original_transaction_id text, p_to_user text) TO receiptq_support;


--
-- Name: FUNCTION verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) TO receiptq_api;
GRANT ALL ON FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) TO receiptq_worker;
GRANT ALL ON FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) TO receiptq_scheduler;
GRANT ALL ON FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) TO receiptq_readonly;


--
-- Name: TABLE api_rate_budgets; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.api_rate_budgets TO receiptq_readonly;
GRANT SELECT ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;


--
-- Name: COLUMN api_rate_budgets.bundle_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(bundle_id) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(bundle_id) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;


--
-- Name: COLUMN api_rate_budgets.endpoint; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(endpoint) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(endpoint) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;


--
-- Name: COLUMN api_rate_budgets.environment; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(environment) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(environment) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;


--
-- Name: COLUMN api_rate_budgets.rate_per_second; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(rate_per_second),UPDATE(rate_per_second) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(rate_per_second),UPDATE(rate_per_second) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;


--
-- Name: COLUMN api_rate_budgets.capacity; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(capacity),UPDATE(capacity) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(capacity),UPDATE(capacity) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;


--
-- Name: COLUMN api_rate_budgets.tokens; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(tokens),UPDATE(tokens) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(tokens),UPDATE(tokens) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;


--
-- Name: COLUMN api_rate_budgets.refilled_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(refilled_at),UPDATE(refilled_at) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(refilled_at),UPDATE(refilled_at) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;


--
-- Name: COLUMN api_rate_budgets.paused_until; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(paused_until) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT UPDATE(paused_until) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;


--
-- Name: COLUMN api_rate_budgets.granted_total; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(granted_total) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT UPDATE(granted_total) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;


--
-- Name: COLUMN api_rate_budgets.pauses_total; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(pauses_total) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT UPDATE(pauses_total) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;


--
-- Name: TABLE api_rate_budget_status; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.api_rate_budget_status TO receiptq_readonly;


--
-- Name: TABLE jobs; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.jobs TO receiptq_worker;
GRANT DELETE ON TABLE receiptq.jobs TO receiptq_scheduler;


--
-- Name: COLUMN jobs.id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(id),INSERT(id) ON TABLE receiptq.jobs TO receiptq_api;
GRANT SELECT(id) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(id) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT INSERT(id) ON TABLE receiptq.jobs TO receiptq_worker;


--
-- Name: COLUMN jobs.receipt_data; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(receipt_data) ON TABLE receiptq.jobs TO receiptq_api;


--
-- Name: COLUMN jobs.receipt_sha256; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(receipt_sha256) ON TABLE receiptq.jobs TO receiptq_api;
GRANT SELECT(receipt_sha256) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(receipt_sha256) ON TABLE receiptq.jobs TO receiptq_readonly;


--
-- Name: COLUMN jobs.transaction_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(transaction_id),INSERT(transaction_id) ON TABLE receiptq.jobs TO receiptq_api;
GRANT SELECT(transaction_id) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(transaction_id) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT INSERT(transaction_id) ON TABLE receiptq.jobs TO receiptq_worker;


--
-- Name: COLUMN jobs.user_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(user_id),INSERT(user_id) ON TABLE receiptq.jobs TO receiptq_api;
GRANT SELECT(user_id) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(user_id) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT INSERT(user_id) ON TABLE receiptq.jobs TO receiptq_worker;


--
-- Name: COLUMN jobs.product_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(product_id),INSERT(product_id) ON TABLE receiptq.jobs TO receiptq_api;
GRANT SELECT(product_id) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(product_id) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT INSERT(product_id) ON TABLE receiptq.jobs TO receiptq_worker;


--
-- Name: COLUMN jobs.order_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(order_id),INSERT(order_id) ON TABLE receiptq.jobs TO receiptq_api;
GRANT SELECT(order_id) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(order_id) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT INSERT(order_id) ON TABLE receiptq.jobs TO receiptq_worker;


--
-- Name: COLUMN jobs.state; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(state) ON TABLE receiptq.jobs TO receiptq_api;
GRANT UPDATE(state) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(state),UPDATE(state) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(state) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT UPDATE(state) ON TABLE receiptq.jobs TO receiptq_support;


--
-- Name: COLUMN jobs.attempts; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(attempts) ON TABLE receiptq.jobs TO receiptq_api;
GRANT UPDATE(attempts) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(attempts) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(attempts) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT UPDATE(attempts) ON TABLE receiptq.jobs TO receiptq_support;


--
-- Name: COLUMN jobs.run_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(run_at) ON TABLE receiptq.jobs TO receiptq_api;
GRANT UPDATE(run_at) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(run_at),UPDATE(run_at) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(run_at) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT UPDATE(run_at) ON TABLE receiptq.jobs TO receiptq_support;


--
-- Name: COLUMN jobs.locked_by; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(locked_by) ON TABLE receiptq.jobs TO receiptq_api;
GRANT UPDATE(locked_by) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(locked_by),UPDATE(locked_by) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(locked_by) ON TABLE receiptq.jobs TO receiptq_readonly;


--
-- Name: COLUMN jobs.locked_until; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(locked_until) ON TABLE receiptq.jobs TO receiptq_api;
GRANT UPDATE(locked_until) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(locked_until),UPDATE(locked_until) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(locked_until) ON TABLE receiptq.jobs TO receiptq_readonly;


--
-- Name: COLUMN jobs.apple_status; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(apple_status) ON TABLE receiptq.jobs TO receiptq_api;
GRANT UPDATE(apple_status) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(apple_status) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(apple_status) ON TABLE receiptq.jobs TO receiptq_readonly;


--
-- Name: COLUMN jobs.apple_environment; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(apple_environment),INSERT(apple_environment) ON TABLE receiptq.jobs TO receiptq_api;
GRANT INSERT(apple_environment),UPDATE(apple_environment) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(apple_environment) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(apple_environment) ON TABLE receiptq.jobs TO receiptq_readonly;


--
-- Name: COLUMN jobs.last_error; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(last_error) ON TABLE receiptq.jobs TO receiptq_api;
GRANT UPDATE(last_error) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(last_error),UPDATE(last_error) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(last_error) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT UPDATE(last_error) ON TABLE receiptq.jobs TO receiptq_support;


--
-- Name: COLUMN jobs.outcome_reason; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(outcome_reason) ON TABLE receiptq.jobs TO receiptq_api;
GRANT UPDATE(outcome_reason) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(outcome_reason),UPDATE(outcome_reason) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(outcome_reason) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT UPDATE(outcome_reason) ON TABLE receiptq.jobs TO receiptq_support;


--
-- Name: COLUMN jobs.created_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(created_at) ON TABLE receiptq.jobs TO receiptq_api;
GRANT SELECT(created_at) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(created_at) ON TABLE receiptq.jobs TO receiptq_readonly;


--
-- Name: COLUMN jobs.updated_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(updated_at),UPDATE(updated_at) ON TABLE receiptq.jobs TO receiptq_api;
GRANT UPDATE(updated_at) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(updated_at),UPDATE(updated_at) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(updated_at) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT UPDATE(updated_at) ON TABLE receiptq.jobs TO receiptq_support;


--
-- Name: COLUMN jobs.finished_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(finished_at) ON TABLE receiptq.jobs TO receiptq_api;
GRANT UPDATE(finished_at) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(finished_at),UPDATE(finished_at) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(finished_at) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT UPDATE(finished_at) ON TABLE receiptq.jobs TO receiptq_support;


--
-- Name: COLUMN jobs.bounded_answers; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(bounded_answers) ON TABLE receiptq.jobs TO receiptq_api;
GRANT UPDATE(bounded_answers) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(bounded_answers) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(bounded_answers) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT UPDATE(bounded_answers) ON TABLE receiptq.jobs TO receiptq_support;


--
-- Name: COLUMN jobs.redriven_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(redriven_at) ON TABLE receiptq.jobs TO receiptq_api;
GRANT SELECT(redriven_at) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(redriven_at) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT UPDATE(redriven_at) ON TABLE receiptq.jobs TO receiptq_support;


--
-- Name: COLUMN jobs.purchase_key; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(purchase_key) ON TABLE receiptq.jobs TO receiptq_api;
GRANT UPDATE(purchase_key) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(purchase_key) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(purchase_key) ON TABLE receiptq.jobs TO receiptq_readonly;


--
-- Name: COLUMN jobs.superseded_by; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(superseded_by),UPDATE(superseded_by) ON TABLE receiptq.jobs TO receiptq_api;
GRANT SELECT(superseded_by) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(superseded_by) ON TABLE receiptq.jobs TO receiptq_readonly;


--
-- Name: COLUMN jobs.kind; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(kind),INSERT(kind) ON TABLE receiptq.jobs TO receiptq_api;
GRANT SELECT(kind) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(kind) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT INSERT(kind) ON TABLE receiptq.jobs TO receiptq_worker;


--
-- Name: COLUMN jobs.signed_transaction; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(signed_transaction) ON TABLE receiptq.jobs TO receiptq_api;
GRANT INSERT(signed_transaction) ON TABLE receiptq.jobs TO receiptq_worker;


--
-- Name: COLUMN jobs.app_account_token; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(app_account_token),INSERT(app_account_token) ON TABLE receiptq.jobs TO receiptq_api;
GRANT SELECT(app_account_token) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(app_account_token) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT INSERT(app_account_token) ON TABLE receiptq.jobs TO receiptq_worker;


--
-- Name: COLUMN jobs.trusted_claim; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(trusted_claim),INSERT(trusted_claim) ON TABLE receiptq.jobs TO receiptq_api;
GRANT SELECT(trusted_claim) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(trusted_claim) ON TABLE receiptq.jobs TO receiptq_readonly;
GRANT INSERT(trusted_claim) ON TABLE receiptq.jobs TO receiptq_worker;


--
-- Name: COLUMN jobs.claim_proof; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(claim_proof) ON TABLE receiptq.jobs TO receiptq_api;
GRANT INSERT(claim_proof) ON TABLE receiptq.jobs TO receiptq_worker;


--
-- Name: COLUMN jobs.request_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(request_id),INSERT(request_id) ON TABLE receiptq.jobs TO receiptq_api;
GRANT INSERT(request_id) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(request_id) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(request_id) ON TABLE receiptq.jobs TO receiptq_readonly;


--
-- Name: TABLE claimable_work; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.claimable_work TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.claimable_work TO receiptq_readonly;
GRANT SELECT ON TABLE receiptq.claimable_work TO receiptq_worker;


--
-- Name: TABLE consumption_consents; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT,INSERT ON TABLE receiptq.consumption_consents TO receiptq_api;
GRANT SELECT ON TABLE receiptq.consumption_consents TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.consumption_consents TO receiptq_readonly;


--
-- Name: COLUMN consumption_consents.consented; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(consented) ON TABLE receiptq.consumption_consents TO receiptq_api;


--
-- Name: COLUMN consumption_consents.recorded_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(recorded_at) ON TABLE receiptq.consumption_consents TO receiptq_api;


--
-- Name: TABLE consumption_requests; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT,INSERT ON TABLE receiptq.consumption_requests TO receiptq_worker;
GRANT SELECT,DELETE ON TABLE receiptq.consumption_requests TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.consumption_requests TO receiptq_readonly;


--
-- Name: COLUMN consumption_requests.state; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(state) ON TABLE receiptq.consumption_requests TO receiptq_worker;
GRANT UPDATE(state) ON TABLE receiptq.consumption_requests TO receiptq_scheduler;


--
-- Name: COLUMN consumption_requests.attempts; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(attempts) ON TABLE receiptq.consumption_requests TO receiptq_worker;


--
-- Name: COLUMN consumption_requests.run_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(run_at) ON TABLE receiptq.consumption_requests TO receiptq_worker;
GRANT UPDATE(run_at) ON TABLE receiptq.consumption_requests TO receiptq_scheduler;


--
-- Name: COLUMN consumption_requests.locked_by; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(locked_by) ON TABLE receiptq.consumption_requests TO receiptq_worker;
GRANT UPDATE(locked_by) ON TABLE receiptq.consumption_requests TO receiptq_scheduler;


--
-- Name: COLUMN consumption_requests.locked_until; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(locked_until) ON TABLE receiptq.consumption_requests TO receiptq_worker;
GRANT UPDATE(locked_until) ON TABLE receiptq.consumption_requests TO receiptq_scheduler;


--
-- Name: COLUMN consumption_requests.last_error; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(last_error) ON TABLE receiptq.consumption_requests TO receiptq_worker;
GRANT UPDATE(last_error) ON TABLE receiptq.consumption_requests TO receiptq_scheduler;


--
-- Name: COLUMN consumption_requests.sent_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(sent_at) ON TABLE receiptq.consumption_requests TO receiptq_worker;


--
-- Name: TABLE deliveries; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.deliveries TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.deliveries TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.deliveries TO receiptq_readonly;


--
-- Name: COLUMN deliveries.state; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(state) ON TABLE receiptq.deliveries TO receiptq_worker;
GRANT UPDATE(state) ON TABLE receiptq.deliveries TO receiptq_scheduler;
GRANT UPDATE(state) ON TABLE receiptq.deliveries TO receiptq_support;


--
-- Name: COLUMN deliveries.attempts; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(attempts) ON TABLE receiptq.deliveries TO receiptq_worker;
GRANT UPDATE(attempts) ON TABLE receiptq.deliveries TO receiptq_support;


--
-- Name: COLUMN deliveries.run_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(run_at) ON TABLE receiptq.deliveries TO receiptq_worker;
GRANT UPDATE(run_at) ON TABLE receiptq.deliveries TO receiptq_scheduler;
GRANT UPDATE(run_at) ON TABLE receiptq.deliveries TO receiptq_support;


--
-- Name: COLUMN deliveries.locked_by; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(locked_by) ON TABLE receiptq.deliveries TO receiptq_worker;
GRANT UPDATE(locked_by) ON TABLE receiptq.deliveries TO receiptq_scheduler;


--
-- Name: COLUMN deliveries.locked_until; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(locked_until) ON TABLE receiptq.deliveries TO receiptq_worker;
GRANT UPDATE(locked_until) ON TABLE receiptq.deliveries TO receiptq_scheduler;


--
-- Name: COLUMN deliveries.last_status; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(last_status) ON TABLE receiptq.deliveries TO receiptq_worker;


--
-- Name: COLUMN deliveries.last_error; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(last_error) ON TABLE receiptq.deliveries TO receiptq_worker;
GRANT UPDATE(last_error) ON TABLE receiptq.deliveries TO receiptq_scheduler;
GRANT UPDATE(last_error) ON TABLE receiptq.deliveries TO receiptq_support;


--
-- Name: COLUMN deliveries.budget_from; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(budget_from) ON TABLE receiptq.deliveries TO receiptq_support;


--
-- Name: COLUMN deliveries.delivered_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(delivered_at) ON TABLE receiptq.deliveries TO receiptq_worker;


--
-- Name: TABLE events; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.events TO receiptq_api;
GRANT SELECT ON TABLE receiptq.events TO receiptq_worker;
GRANT SELECT,DELETE ON TABLE receiptq.events TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.events TO receiptq_readonly;


--
-- Name: COLUMN events.type; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(type) ON TABLE receiptq.events TO receiptq_worker;


--
-- Name: COLUMN events.user_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(user_id) ON TABLE receiptq.events TO receiptq_worker;


--
-- Name: COLUMN events.job_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(job_id) ON TABLE receiptq.events TO receiptq_worker;


--
-- Name: COLUMN events.purchase_key; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(purchase_key) ON TABLE receiptq.events TO receiptq_worker;


--
-- Name: COLUMN events.body; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(body) ON TABLE receiptq.events TO receiptq_worker;


--
-- Name: TABLE failures; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.failures TO receiptq_readonly;


--
-- Name: TABLE grants; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.grants TO receiptq_api;
GRANT SELECT,INSERT ON TABLE receiptq.grants TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.grants TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.grants TO receiptq_readonly;


--
-- Name: COLUMN grants.revoked_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(revoked_at) ON TABLE receiptq.grants TO receiptq_worker;


--
-- Name: COLUMN grants.revocation_reason; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(revocation_reason) ON TABLE receiptq.grants TO receiptq_worker;


--
-- Name: COLUMN grants.revoked_by_notification; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(revoked_by_notification) ON TABLE receiptq.grants TO receiptq_worker;


--
-- Name: COLUMN grants.revocation_signed_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(revocation_signed_at) ON TABLE receiptq.grants TO receiptq_worker;


--
-- Name: COLUMN grants.signed_under; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(signed_under) ON TABLE receiptq.grants TO receiptq_worker;


--
-- Name: TABLE flagged_grants; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.flagged_grants TO receiptq_readonly;


--
-- Name: TABLE fleet_control; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.fleet_control TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.fleet_control TO receiptq_readonly;


--
-- Name: COLUMN fleet_control.paused; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(paused) ON TABLE receiptq.fleet_control TO receiptq_support;


--
-- Name: COLUMN fleet_control.changed_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(changed_at) ON TABLE receiptq.fleet_control TO receiptq_support;


--
-- Name: COLUMN fleet_control.changed_by; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(changed_by) ON TABLE receiptq.fleet_control TO receiptq_support;


--
-- Name: COLUMN fleet_control.reason; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(reason) ON TABLE receiptq.fleet_control TO receiptq_support;


--
-- Name: TABLE history_syncs; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT,INSERT ON TABLE receiptq.history_syncs TO receiptq_api;
GRANT SELECT,INSERT ON TABLE receiptq.history_syncs TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.history_syncs TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.history_syncs TO receiptq_readonly;


--
-- Name: COLUMN history_syncs.user_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(user_id) ON TABLE receiptq.history_syncs TO receiptq_api;


--
-- Name: COLUMN history_syncs.reason; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(reason) ON TABLE receiptq.history_syncs TO receiptq_api;


--
-- Name: COLUMN history_syncs.state; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(state) ON TABLE receiptq.history_syncs TO receiptq_api;
GRANT UPDATE(state) ON TABLE receiptq.history_syncs TO receiptq_worker;
GRANT UPDATE(state) ON TABLE receiptq.history_syncs TO receiptq_scheduler;


--
-- Name: COLUMN history_syncs.run_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(run_at) ON TABLE receiptq.history_syncs TO receiptq_api;
GRANT UPDATE(run_at) ON TABLE receiptq.history_syncs TO receiptq_worker;
GRANT UPDATE(run_at) ON TABLE receiptq.history_syncs TO receiptq_scheduler;


--
-- Name: COLUMN history_syncs.locked_by; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(locked_by) ON TABLE receiptq.history_syncs TO receiptq_worker;
GRANT UPDATE(locked_by) ON TABLE receiptq.history_syncs TO receiptq_scheduler;


--
-- Name: COLUMN history_syncs.locked_until; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(locked_until) ON TABLE receiptq.history_syncs TO receiptq_worker;
GRANT UPDATE(locked_until) ON TABLE receiptq.history_syncs TO receiptq_scheduler;


--
-- Name: COLUMN history_syncs.attempts; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(attempts) ON TABLE receiptq.history_syncs TO receiptq_worker;


--
-- Name: COLUMN history_syncs.revision; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(revision) ON TABLE receiptq.history_syncs TO receiptq_worker;


--
-- Name: COLUMN history_syncs.pages; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(pages) ON TABLE receiptq.history_syncs TO receiptq_worker;


--
-- Name: COLUMN history_syncs.transactions; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(transactions) ON TABLE receiptq.history_syncs TO receiptq_worker;


--
-- Name: COLUMN history_syncs.requested_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(requested_at) ON TABLE receiptq.history_syncs TO receiptq_api;


--
-- Name: COLUMN history_syncs.synced_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(synced_at) ON TABLE receiptq.history_syncs TO receiptq_worker;


--
-- Name: COLUMN history_syncs.last_error; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(last_error) ON TABLE receiptq.history_syncs TO receiptq_worker;
GRANT UPDATE(last_error) ON TABLE receiptq.history_syncs TO receiptq_scheduler;


--
-- Name: COLUMN history_syncs.covered_by; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(covered_by) ON TABLE receiptq.history_syncs TO receiptq_worker;


--
-- Name: SEQUENCE jobs_id_seq; Type: ACL; Schema: receiptq; Owner: -
--

GRANT USAGE ON SEQUENCE receiptq.jobs_id_seq TO receiptq_api;
GRANT USAGE ON SEQUENCE receiptq.jobs_id_seq TO receiptq_worker;


--
-- Name: TABLE worker_heartbeats; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT,INSERT,DELETE ON TABLE receiptq.worker_heartbeats TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.worker_heartbeats TO receiptq_readonly;
GRANT SELECT,DELETE ON TABLE receiptq.worker_heartbeats TO receiptq_scheduler;


--
-- Name: COLUMN worker_heartbeats.host; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(host) ON TABLE receiptq.worker_heartbeats TO receiptq_worker;


--
-- Name: COLUMN worker_heartbeats.pid; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(pid) ON TABLE receiptq.worker_heartbeats TO receiptq_worker;


--
-- Name: COLUMN worker_heartbeats.started_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(started_at) ON TABLE receiptq.worker_heartbeats TO receiptq_worker;


--
-- Name: COLUMN worker_heartbeats.beat_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(beat_at) ON TABLE receiptq.worker_heartbeats TO receiptq_worker;


--
-- Name: COLUMN worker_heartbeats.interval_ms; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(interval_ms) ON TABLE receiptq.worker_heartbeats TO receiptq_worker;


--
-- Name: TABLE live_workers; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.live_workers TO receiptq_readonly;


--
-- Name: TABLE notification_recovery; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.notification_recovery TO receiptq_readonly;
GRANT SELECT,INSERT,UPDATE ON TABLE receiptq.notification_recovery TO receiptq_scheduler;


--
-- Name: TABLE notifications; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.notifications TO receiptq_worker;
GRANT DELETE ON TABLE receiptq.notifications TO receiptq_scheduler;


--
-- Name: COLUMN notifications.notification_uuid; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(notification_uuid),INSERT(notification_uuid) ON TABLE receiptq.notifications TO receiptq_api;
GRANT SELECT(notification_uuid),INSERT(notification_uuid) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(notification_uuid) ON TABLE receiptq.notifications TO receiptq_readonly;


--
-- Name: COLUMN notifications.notification_type; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(notification_type),INSERT(notification_type) ON TABLE receiptq.notifications TO receiptq_api;
GRANT SELECT(notification_type),INSERT(notification_type) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(notification_type) ON TABLE receiptq.notifications TO receiptq_readonly;


--
-- Name: COLUMN notifications.subtype; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(subtype) ON TABLE receiptq.notifications TO receiptq_api;
GRANT SELECT(subtype),INSERT(subtype) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(subtype) ON TABLE receiptq.notifications TO receiptq_readonly;


--
-- Name: COLUMN notifications.environment; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(environment) ON TABLE receiptq.notifications TO receiptq_api;
GRANT SELECT(environment),INSERT(environment) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(environment) ON TABLE receiptq.notifications TO receiptq_readonly;


--
-- Name: COLUMN notifications.signed_date; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(signed_date) ON TABLE receiptq.notifications TO receiptq_api;
GRANT SELECT(signed_date),INSERT(signed_date) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(signed_date) ON TABLE receiptq.notifications TO receiptq_readonly;


--
-- Name: COLUMN notifications.original_transaction_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(original_transaction_id) ON TABLE receiptq.notifications TO receiptq_api;
GRANT SELECT(original_transaction_id),INSERT(original_transaction_id) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(original_transaction_id) ON TABLE receiptq.notifications TO receiptq_readonly;


--
-- Name: COLUMN notifications.transaction_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(transaction_id) ON TABLE receiptq.notifications TO receiptq_api;
GRANT SELECT(transaction_id),INSERT(transaction_id) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(transaction_id) ON TABLE receiptq.notifications TO receiptq_readonly;


--
-- Name: COLUMN notifications.signed_payload; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(signed_payload) ON TABLE receiptq.notifications TO receiptq_api;
GRANT INSERT(signed_payload) ON TABLE receiptq.notifications TO receiptq_scheduler;


--
-- Name: COLUMN notifications.source; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(source) ON TABLE receiptq.notifications TO receiptq_api;
GRANT SELECT(source),INSERT(source) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(source) ON TABLE receiptq.notifications TO receiptq_readonly;


--
-- Name: COLUMN notifications.state; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(state),INSERT(state) ON TABLE receiptq.notifications TO receiptq_api;
GRANT UPDATE(state) ON TABLE receiptq.notifications TO receiptq_worker;
GRANT SELECT(state),INSERT(state),UPDATE(state) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(state) ON TABLE receiptq.notifications TO receiptq_readonly;
GRANT UPDATE(state) ON TABLE receiptq.notifications TO receiptq_support;


--
-- Name: COLUMN notifications.attempts; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(attempts) ON TABLE receiptq.notifications TO receiptq_worker;
GRANT SELECT(attempts) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(attempts) ON TABLE receiptq.notifications TO receiptq_readonly;
GRANT UPDATE(attempts) ON TABLE receiptq.notifications TO receiptq_support;


--
-- Name: COLUMN notifications.run_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(run_at) ON TABLE receiptq.notifications TO receiptq_worker;
GRANT SELECT(run_at),UPDATE(run_at) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(run_at) ON TABLE receiptq.notifications TO receiptq_readonly;
GRANT UPDATE(run_at) ON TABLE receiptq.notifications TO receiptq_support;


--
-- Name: COLUMN notifications.locked_by; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(locked_by) ON TABLE receiptq.notifications TO receiptq_worker;
GRANT SELECT(locked_by),UPDATE(locked_by) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(locked_by) ON TABLE receiptq.notifications TO receiptq_readonly;


--
-- Name: COLUMN notifications.locked_until; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(locked_until) ON TABLE receiptq.notifications TO receiptq_worker;
GRANT SELECT(locked_until),UPDATE(locked_until) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(locked_until) ON TABLE receiptq.notifications TO receiptq_readonly;


--
-- Name: COLUMN notifications.last_error; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(last_error) ON TABLE receiptq.notifications TO receiptq_worker;
GRANT SELECT(last_error),INSERT(last_error),UPDATE(last_error) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(last_error) ON TABLE receiptq.notifications TO receiptq_readonly;
GRANT INSERT(last_error) ON TABLE receiptq.notifications TO receiptq_api;
GRANT UPDATE(last_error) ON TABLE receiptq.notifications TO receiptq_support;


--
-- Name: COLUMN notifications.outcome; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(outcome) ON TABLE receiptq.notifications TO receiptq_worker;
GRANT SELECT(outcome),UPDATE(outcome) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(outcome) ON TABLE receiptq.notifications TO receiptq_readonly;
GRANT UPDATE(outcome) ON TABLE receiptq.notifications TO receiptq_support;


--
-- Name: COLUMN notifications.received_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(received_at) ON TABLE receiptq.notifications TO receiptq_api;
GRANT SELECT(received_at) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(received_at) ON TABLE receiptq.notifications TO receiptq_readonly;


--
-- Name: COLUMN notifications.applied_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(applied_at) ON TABLE receiptq.notifications TO receiptq_worker;
GRANT SELECT(applied_at) ON TABLE receiptq.notifications TO receiptq_scheduler;
GRANT SELECT(applied_at) ON TABLE receiptq.notifications TO receiptq_readonly;


--
-- Name: TABLE notification_health; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.notification_health TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.notification_health TO receiptq_readonly;


--
-- Name: TABLE orders; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.orders TO receiptq_api;
GRANT SELECT ON TABLE receiptq.orders TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.orders TO receiptq_readonly;


--
-- Name: COLUMN orders.order_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(order_id) ON TABLE receiptq.orders TO receiptq_api;


--
-- Name: COLUMN orders.user_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(user_id) ON TABLE receiptq.orders TO receiptq_api;


--
-- Name: COLUMN orders.product_id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(product_id) ON TABLE receiptq.orders TO receiptq_api;


--
-- Name: COLUMN orders.state; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(state) ON TABLE receiptq.orders TO receiptq_worker;


--
-- Name: COLUMN orders.fulfilled_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(fulfilled_at) ON TABLE receiptq.orders TO receiptq_worker;


--
-- Name: COLUMN orders.app_account_token; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(app_account_token) ON TABLE receiptq.orders TO receiptq_api;


--
-- Name: TABLE outcomes; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.outcomes TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.outcomes TO receiptq_readonly;


--
-- Name: TABLE ownership_refusals; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.ownership_refusals TO receiptq_readonly;


--
-- Name: TABLE products; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.products TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.products TO receiptq_readonly;
GRANT SELECT ON TABLE receiptq.products TO receiptq_api;


--
-- Name: TABLE queue_depth; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.queue_depth TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.queue_depth TO receiptq_readonly;


--
-- Name: TABLE queue_health; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.queue_health TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.queue_health TO receiptq_readonly;


--
-- Name: TABLE receipt_submissions; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT,INSERT ON TABLE receiptq.receipt_submissions TO receiptq_api;
GRANT SELECT,DELETE ON TABLE receiptq.receipt_submissions TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.receipt_submissions TO receiptq_readonly;


--
-- Name: TABLE subscription_corrections; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT,INSERT ON TABLE receiptq.subscription_corrections TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.subscription_corrections TO receiptq_readonly;
GRANT SELECT,DELETE ON TABLE receiptq.subscription_corrections TO receiptq_scheduler;


--
-- Name: TABLE subscriptions; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.subscriptions TO receiptq_api;
GRANT SELECT,INSERT,UPDATE ON TABLE receiptq.subscriptions TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.subscriptions TO receiptq_readonly;


--
-- Name: TABLE reconciliation_health; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.reconciliation_health TO receiptq_readonly;


--
-- Name: TABLE revocations; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.revocations TO receiptq_api;
GRANT SELECT,INSERT,UPDATE ON TABLE receiptq.revocations TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.revocations TO receiptq_readonly;


--
-- Name: TABLE schema_migrations; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.schema_migrations TO receiptq_api;
GRANT SELECT ON TABLE receiptq.schema_migrations TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.schema_migrations TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.schema_migrations TO receiptq_readonly;


--
-- Name: TABLE schema_repeatables; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.schema_repeatables TO receiptq_api;
GRANT SELECT ON TABLE receiptq.schema_repeatables TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.schema_repeatables TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.schema_repeatables TO receiptq_readonly;


--
-- Name: TABLE support_audit; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.support_audit TO receiptq_readonly;


--
-- Name: COLUMN support_audit.actor; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(actor) ON TABLE receiptq.support_audit TO receiptq_support;


--
-- Name: COLUMN support_audit.action; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(action) ON TABLE receiptq.support_audit TO receiptq_support;


--
-- Name: COLUMN support_audit.subject; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(subject) ON TABLE receiptq.support_audit TO receiptq_support;


--
-- Name: COLUMN support_audit.why; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(why) ON TABLE receiptq.support_audit TO receiptq_support;


--
-- Name: COLUMN support_audit.before; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(before) ON TABLE receiptq.support_audit TO receiptq_support;


--
-- Name: COLUMN support_audit.after; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(after) ON TABLE receiptq.support_audit TO receiptq_support;


--
-- Name: TABLE transaction_submissions; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT,INSERT ON TABLE receiptq.transaction_submissions TO receiptq_api;
GRANT SELECT,INSERT ON TABLE receiptq.transaction_submissions TO receiptq_worker;
GRANT SELECT,DELETE ON TABLE receiptq.transaction_submissions TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.transaction_submissions TO receiptq_readonly;


--
-- Name: TABLE trusted_claim_tokens; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.trusted_claim_tokens TO receiptq_api;
GRANT SELECT ON TABLE receiptq.trusted_claim_tokens TO receiptq_readonly;


--
-- Name: TABLE webhook_endpoints; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.webhook_endpoints TO receiptq_worker;


--
-- Name: COLUMN webhook_endpoints.id; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(id) ON TABLE receiptq.webhook_endpoints TO receiptq_scheduler;
GRANT SELECT(id) ON TABLE receiptq.webhook_endpoints TO receiptq_readonly;


--
-- Name: COLUMN webhook_endpoints.url; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(url) ON TABLE receiptq.webhook_endpoints TO receiptq_readonly;


--
-- Name: COLUMN webhook_endpoints.event_types; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(event_types) ON TABLE receiptq.webhook_endpoints TO receiptq_scheduler;
GRANT SELECT(event_types) ON TABLE receiptq.webhook_endpoints TO receiptq_readonly;


--
-- Name: COLUMN webhook_endpoints.enabled; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(enabled) ON TABLE receiptq.webhook_endpoints TO receiptq_scheduler;
GRANT SELECT(enabled) ON TABLE receiptq.webhook_endpoints TO receiptq_readonly;


--
-- Name: COLUMN webhook_endpoints.created_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(created_at) ON TABLE receiptq.webhook_endpoints TO receiptq_readonly;


--
-- Name: COLUMN webhook_endpoints.updated_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(updated_at) ON TABLE receiptq.webhook_endpoints TO receiptq_readonly;


--
-- Name: TABLE webhook_health; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.webhook_health TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.webhook_health TO receiptq_readonly;


--
-- PostgreSQL database dump complete
--


