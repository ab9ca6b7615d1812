-- ReceiptQueue's schema as it is now: what `receiptq migrate` makes of SQL/migrations in a new
-- database, dumped by pg_dump (--schema-only --schema=receiptq --no-owner). The current truth;
-- the migrations are its history. Generated: do not edit. `./Deploy/dev schema` rewrites it,
-- and SchemaTests fails when it differs from a fresh migration.
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
    INSERT INTO receiptq.events (type, user_id, job_id, purchase_key, trace_parent, body)
    SELECT CASE WHEN j.state = 'failed' THEN 'job.failed' ELSE 'verdict.' || v.verdict END,
           j.user_id, j.id, j.purchase_key, j.trace_parent,
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
-- Name: move_owner(text, text, text, text, text); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.move_owner(p_original_transaction_id text, p_to_user text, p_source text, p_order_id text, p_reason text) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_from text;
    v_keys jsonb;
BEGIN
    -- The ledger's write holds this lock for the original transaction while it decides (RecordPurchases).
    PERFORM pg_advisory_xact_lock(hashtextextended('receiptq.owner:' || p_original_transaction_id, 0));
    SELECT user_id INTO v_from FROM receiptq.owners WHERE original_transaction_id = p_original_transaction_id FOR UPDATE;   -- owners_pkey
    IF NOT FOUND THEN
        RAISE EXCEPTION 'original transaction % has no owner', p_original_transaction_id USING ERRCODE = 'no_data_found';
    END IF;
    IF v_from = p_to_user THEN
        RETURN NULL;
    END IF;
    UPDATE receiptq.owners SET user_id = p_to_user, source = p_source, order_id = p_order_id, changed_at = now()
    WHERE original_transaction_id = p_original_transaction_id;
    UPDATE receiptq.subscriptions SET user_id = p_to_user, updated_at = now()
    WHERE original_transaction_id = p_original_transaction_id;                                                            -- subscriptions_pkey
    SELECT jsonb_agg(purchase_key ORDER BY purchase_key) INTO v_keys
    FROM receiptq.grants WHERE original_transaction_id = p_original_transaction_id;                                        -- grants_original_idx
    PERFORM pg_advisory_xact_lock(1381061969, 3);   -- AppendJobEvents.lockKey: events in commit order
    INSERT INTO receiptq.events (type, user_id, purchase_key, body)
    SELECT 'grant.transferred', u.user_id, NULL,
           jsonb_build_object('original_transaction_id', p_original_transaction_id, 'direction', u.direction,
                              'from_user_id', v_from, 'to_user_id', p_to_user, 'reason', p_reason,
                              'purchase_keys', coalesce(v_keys, '[]'::jsonb))
    FROM (VALUES (v_from, 'out', 1), (p_to_user, 'in', 2)) AS u(user_id, direction, ord)
    ORDER BY u.ord;
    RETURN v_from;
END $$;


--
-- Name: FUNCTION move_owner(p_original_transaction_id text, p_to_user text, p_source text, p_order_id text, p_reason text); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.move_owner(p_original_transaction_id text, p_to_user text, p_source text, p_order_id text, p_reason text) IS 'Moves an original transaction''s owner (and so every grant of it, and its subscription rows) to another account, with grant.transferred to both; the one home of a move, called only by support_transfer and take_owner_by_token. Returns the previous owner, NULL when unchanged.';


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
-- Name: support_grant(text, text, text, text, text, text, timestamp with time zone); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text, p_product_type text, p_expires_at timestamp with time zone) RETURNS bigint
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
    IF p_product_type IS NULL OR p_product_type NOT IN ('consumable', 'non_consumable', 'auto_renewable', 'non_renewing') THEN
        RAISE EXCEPTION 'a manual grant names the product''s type: consumable, non_consumable, auto_renewable or non_renewing'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_product_type IN ('auto_renewable', 'non_renewing') AND (p_expires_at IS NULL OR p_expires_at <= now()) THEN
        RAISE EXCEPTION 'a manual grant of a subscription (%) names when its access ends, in the future', p_product_type
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_product_type IN ('consumable', 'non_consumable') AND p_expires_at IS NOT NULL THEN
        RAISE EXCEPTION 'a manual grant of a % has no end: grant a subscription type for access that ends', p_product_type
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source)
    VALUES (v_key, p_user_id, 'Production', 'manual')
    ON CONFLICT (original_transaction_id) DO NOTHING;                                       -- owners_pkey
    IF NOT FOUND THEN
        RAISE EXCEPTION 'manual grant % exists: choose another reference', p_reference USING ERRCODE = 'unique_violation';
    END IF;
    INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key,
                                 product_type, expires_date, manual_by)
    VALUES (v_key, v_key, -nextval('receiptq.manual_grant_ids'), p_user_id, p_product_id, 'Production', v_key, p_product_type,
            p_expires_at, p_actor)
    RETURNING * INTO v_row;
    v_data := jsonb_build_object('purchase_key', v_row.purchase_key, 'transaction_id', v_row.transaction_id,
                                 'original_transaction_id', v_row.original_transaction_id, 'product_id', v_row.product_id,
                                 'product_type', v_row.product_type, 'quantity', v_row.quantity, 'environment', v_row.environment,
                                 'expires_date', v_row.expires_date, 'manual', true, 'reason', p_why);
    INSERT INTO receiptq.support_audit (actor, action, subject, why, before, after)
    VALUES (p_actor, 'grant.manual', 'user:' || p_user_id, p_why, NULL, to_jsonb(v_row))
    RETURNING id INTO v_audit;
    PERFORM pg_advisory_xact_lock(1381061969, 3);   -- AppendJobEvents.lockKey: events in commit order
    INSERT INTO receiptq.events (type, user_id, purchase_key, body) VALUES ('grant.granted_manually', p_user_id, v_key, v_data);
    RETURN v_audit;
END $_$;


--
-- Name: FUNCTION support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text, p_product_type text, p_expires_at timestamp with time zone); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text, p_product_type text, p_expires_at timestamp with time zone) IS 'Support''s manual grant: owner row, ledger row (manual_by; a subscription''s with the end of its access), grant.granted_manually event and audit row at once; returns the audit row''s id.';


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
    PERFORM pg_advisory_xact_lock(1381061969, 3);   -- AppendJobEvents.lockKey: events in commit order
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
BEGIN
    IF p_to_user IS NULL OR length(p_to_user) NOT BETWEEN 1 AND 256 THEN
        RAISE EXCEPTION 'the account to transfer to has 1 to 256 characters' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT user_id INTO v_from FROM receiptq.owners WHERE original_transaction_id = p_original_transaction_id FOR UPDATE;   -- owners_pkey
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no grant of original transaction %', p_original_transaction_id USING ERRCODE = 'no_data_found';
    END IF;
    PERFORM 1 FROM receiptq.grants WHERE original_transaction_id = p_original_transaction_id FOR UPDATE;   -- grants_original_idx
    SELECT jsonb_agg(to_jsonb(g) ORDER BY g.purchase_key) INTO v_before
    FROM receiptq.grants g WHERE g.original_transaction_id = p_original_transaction_id;
    IF EXISTS (SELECT 1 FROM receiptq.grants WHERE original_transaction_id = p_original_transaction_id
                 AND (ownership_type <> 'PURCHASED' OR revoked_at IS NOT NULL OR manual_by IS NOT NULL)) THEN
        RAISE EXCEPTION 'original transaction % cannot be transferred: family-shared, revoked or manual',
            p_original_transaction_id USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF v_from = p_to_user THEN
        RAISE EXCEPTION 'original transaction % is % already', p_original_transaction_id, p_to_user USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM receiptq.move_owner(p_original_transaction_id, p_to_user, 'transfer', NULL, p_why);
    SELECT jsonb_agg(to_jsonb(g) ORDER BY g.purchase_key) INTO v_after
    FROM receiptq.grants g WHERE g.original_transaction_id = p_original_transaction_id;
    INSERT INTO receiptq.support_audit (actor, action, subject, why, before, after)
    VALUES (p_actor, 'purchase.transfer', 'original_transaction:' || p_original_transaction_id, p_why,
            jsonb_build_object('user_id', v_from, 'grants', v_before), jsonb_build_object('user_id', p_to_user, 'grants', v_after))
    RETURNING id INTO v_audit;
    RETURN v_audit;
END $$;


--
-- Name: FUNCTION support_transfer(p_actor text, p_why text, p_original_transaction_id text, p_to_user text); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.support_transfer(p_actor text, p_why text, p_original_transaction_id text, p_to_user text) IS 'Support''s transfer of a purchase between app accounts (its owner, and so every grant of the original transaction and its subscription rows), grant.transferred events to both accounts and the audit row at once; returns the audit row''s id.';


--
-- Name: take_owner_by_token(text, text); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.take_owner_by_token(p_original_transaction_id text, p_order_id text) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_order receiptq.orders%ROWTYPE;
BEGIN
    SELECT * INTO v_order FROM receiptq.orders WHERE order_id = p_order_id;                                                -- orders_pkey
    IF NOT FOUND OR v_order.state <> 'pending' THEN
        RAISE EXCEPTION 'order % is not pending: its token cannot move original transaction %', p_order_id, p_original_transaction_id
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    RETURN receiptq.move_owner(p_original_transaction_id, v_order.user_id, 'token', p_order_id,
                               'Apple''s appAccountToken names order ' || p_order_id || ' of this account');
END $$;


--
-- Name: FUNCTION take_owner_by_token(p_original_transaction_id text, p_order_id text); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.take_owner_by_token(p_original_transaction_id text, p_order_id text) IS 'The worker''s one way to move a purchase: an Apple-signed appAccountToken names a pending order of another account. Returns the previous owner.';


--
-- Name: track_delivery_heads(); Type: FUNCTION; Schema: receiptq; Owner: -
--

CREATE FUNCTION receiptq.track_delivery_heads() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_endpoints text[];
    v_users     text[];
    v_keys      bigint[];
    v_heads     text[];
    v_sequences bigint[];
BEGIN
    IF TG_LEVEL = 'ROW' THEN
        -- BEFORE UPDATE of a head that ends (delivered, failed): unmarked in the same row version.
        NEW.head := false;
        RETURN NEW;
    END IF;
    -- The (endpoint, user) groups whose pending deliveries this statement changed: rows inserted
    -- pending; rows that became pending or stopped being (delivered, failed, re-driven); a lease
    -- that ended back in the queue (its group's oldest may have to go first); a head deleted.
    -- A claim (queued -> delivering) and a head moved by this function change no group.
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(g.endpoint_id ORDER BY g.key), array_agg(g.user_id ORDER BY g.key), array_agg(g.key ORDER BY g.key)
        INTO v_endpoints, v_users, v_keys
        FROM (SELECT DISTINCT n.endpoint_id, n.user_id,
                     hashtextextended('receiptq.delivery_head:' || n.endpoint_id || '/' || n.user_id, 0) AS key
              FROM new_rows n WHERE n.state IN ('queued', 'delivering')) g;
    ELSIF TG_OP = 'UPDATE' THEN
        SELECT array_agg(g.endpoint_id ORDER BY g.key), array_agg(g.user_id ORDER BY g.key), array_agg(g.key ORDER BY g.key)
        INTO v_endpoints, v_users, v_keys
        FROM (SELECT DISTINCT x.endpoint_id, x.user_id,
                     hashtextextended('receiptq.delivery_head:' || x.endpoint_id || '/' || x.user_id, 0) AS key
              FROM old_rows o
              JOIN new_rows n ON n.endpoint_id = o.endpoint_id AND n.event_sequence = o.event_sequence
              CROSS JOIN LATERAL (VALUES (o.endpoint_id, o.user_id), (n.endpoint_id, n.user_id)) AS x(endpoint_id, user_id)
              WHERE (o.state IN ('queued', 'delivering')) <> (n.state IN ('queued', 'delivering'))
                 OR (o.state = 'delivering' AND n.state = 'queued')
                 OR o.user_id <> n.user_id) g;
    ELSE
        -- A head deleted on its own (an endpoint's deletion takes all its deliveries: nothing to do).
        SELECT array_agg(g.endpoint_id ORDER BY g.key), array_agg(g.user_id ORDER BY g.key), array_agg(g.key ORDER BY g.key)
        INTO v_endpoints, v_users, v_keys
        FROM (SELECT DISTINCT o.endpoint_id, o.user_id,
                     hashtextextended('receiptq.delivery_head:' || o.endpoint_id || '/' || o.user_id, 0) AS key
              FROM old_rows o
              WHERE o.head AND EXISTS (SELECT 1 FROM receiptq.webhook_endpoints w WHERE w.id = o.endpoint_id)) g;
    END IF;
    IF v_endpoints IS NULL THEN
        RETURN NULL;
    END IF;

    -- One writer per group at a time: a transaction-scoped lock per (endpoint, user), taken in key
    -- order and held to commit, after each endpoint's lock taken shared. A statement that changes
    -- more than 128 groups (a re-drive, a mass rescue) takes its endpoints' locks exclusive
    -- instead: one lock, not thousands (the lock table holds max_locks_per_transaction per
    -- connection). So whoever commits first, the second sees its rows: an append and the end of
    -- the head it waits behind, a re-drive and an acknowledgement, never both miss each other.
    IF cardinality(v_keys) <= 128 THEN
        PERFORM pg_advisory_xact_lock_shared(hashtextextended('receiptq.delivery_heads:' || e.endpoint_id, 0))
        FROM (SELECT DISTINCT endpoint_id FROM unnest(v_endpoints) AS e(endpoint_id) ORDER BY 1) e;
        PERFORM pg_advisory_xact_lock(k.key) FROM unnest(v_keys) WITH ORDINALITY AS k(key, n) ORDER BY k.n;
    ELSE
        PERFORM pg_advisory_xact_lock(hashtextextended('receiptq.delivery_heads:' || e.endpoint_id, 0))
        FROM (SELECT DISTINCT endpoint_id FROM unnest(v_endpoints) AS e(endpoint_id) ORDER BY 1) e;
    END IF;

    -- Under those locks (this query's snapshot sees all that committed before they were granted):
    -- each group's head and its oldest pending delivery. The head moves to the oldest unless it is
    -- out with a deliverer: a head gone, finished, or queued behind an older pending one (re-driven,
    -- or appended out of order) is unmarked. A head another transaction holds (claimed meanwhile,
    -- or being acknowledged) is skipped, never waited for: it is out, so it stays, and a holder
    -- that ends it moves the head itself once it has these locks.
    WITH g AS (
        SELECT * FROM unnest(v_endpoints, v_users) AS g(endpoint_id, user_id)
    ), s AS (
        SELECT g.endpoint_id, g.user_id, h.event_sequence AS head, h.state AS head_state, f.event_sequence AS oldest
        FROM g
        LEFT JOIN LATERAL (SELECT d.event_sequence, d.state FROM receiptq.deliveries d
                           WHERE d.endpoint_id = g.endpoint_id AND d.user_id = g.user_id AND d.head) h ON true          -- deliveries_head_idx
        LEFT JOIN LATERAL (SELECT d.event_sequence FROM receiptq.deliveries d
                           WHERE d.endpoint_id = g.endpoint_id AND d.user_id = g.user_id AND d.state IN ('queued', 'delivering')
                           ORDER BY d.event_sequence LIMIT 1) f ON true                                                   -- deliveries_pending_idx
    ), moves AS MATERIALIZED (
        SELECT * FROM s WHERE s.head IS DISTINCT FROM s.oldest AND s.head_state IS DISTINCT FROM 'delivering'
    ), displaced AS (
        SELECT d.endpoint_id, d.event_sequence
        FROM moves m JOIN receiptq.deliveries d ON d.endpoint_id = m.endpoint_id AND d.event_sequence = m.head
        WHERE d.head AND d.state <> 'delivering'
        FOR UPDATE OF d SKIP LOCKED
    ), unmarked AS (
        UPDATE receiptq.deliveries d SET head = false
        FROM displaced x
        WHERE d.endpoint_id = x.endpoint_id AND d.event_sequence = x.event_sequence
        RETURNING d.endpoint_id, d.event_sequence
    )
    SELECT array_agg(m.endpoint_id), array_agg(m.oldest) INTO v_heads, v_sequences
    FROM moves m
    WHERE m.oldest IS NOT NULL
      AND (m.head IS NULL OR EXISTS (SELECT 1 FROM unmarked u WHERE u.endpoint_id = m.endpoint_id AND u.event_sequence = m.head));

    IF v_heads IS NOT NULL THEN
        UPDATE receiptq.deliveries d SET head = true
        FROM unnest(v_heads, v_sequences) AS t(endpoint_id, event_sequence)
        WHERE d.endpoint_id = t.endpoint_id AND d.event_sequence = t.event_sequence AND NOT d.head
          AND d.state IN ('queued', 'delivering');
    END IF;
    RETURN NULL;
END $$;


--
-- Name: FUNCTION track_delivery_heads(); Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON FUNCTION receiptq.track_delivery_heads() IS 'Triggers of receiptq.deliveries: keep one head per (endpoint, user) with pending deliveries — the oldest pending one, unless the head is out with a deliverer — so ClaimDeliveries reads due heads from deliveries_due_idx.';


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
-- Name: app_transactions; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.app_transactions (
    app_transaction_id text NOT NULL,
    environment text NOT NULL,
    user_id text NOT NULL,
    bundle_id text NOT NULL,
    original_application_version text,
    original_purchase_date timestamp with time zone,
    original_platform text,
    application_version text,
    signed_at timestamp with time zone NOT NULL,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT app_transactions_app_transaction_id_check CHECK (((length(app_transaction_id) >= 1) AND (length(app_transaction_id) <= 64))),
    CONSTRAINT app_transactions_environment_check CHECK ((environment = ANY (ARRAY['Production'::text, 'Sandbox'::text]))),
    CONSTRAINT app_transactions_user_id_check CHECK (((length(user_id) >= 1) AND (length(user_id) <= 256)))
);


--
-- Name: TABLE app_transactions; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.app_transactions IS 'Each customer''s app transaction (StoreKit 2 AppTransaction), verified by the API and kept for the user who first submitted it: the version first downloaded (paid-to-free migrations) and the Apple Account RESCIND_CONSENT names. Never moved; the newest signature updates application_version.';


--
-- Name: COLUMN app_transactions.original_application_version; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.app_transactions.original_application_version IS 'The app version (CFBundleVersion on iOS) the customer first downloaded: for "bought the app before version X".';


--
-- Name: COLUMN app_transactions.application_version; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.app_transactions.application_version IS 'The version the newest submitted signature was made for.';


--
-- Name: call_minutes; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.call_minutes (
    minute timestamp with time zone NOT NULL,
    target text NOT NULL,
    process text NOT NULL,
    calls bigint NOT NULL,
    failures bigint NOT NULL,
    latency_buckets bigint[] NOT NULL,
    breaker text NOT NULL,
    CONSTRAINT call_minutes_breaker_check CHECK ((breaker = ANY (ARRAY['closed'::text, 'half-open'::text, 'open'::text]))),
    CONSTRAINT call_minutes_calls_check CHECK ((calls >= 0)),
    CONSTRAINT call_minutes_check CHECK (((failures >= 0) AND (failures <= calls))),
    CONSTRAINT call_minutes_latency_buckets_check CHECK ((cardinality(latency_buckets) = 23)),
    CONSTRAINT call_minutes_minute_check CHECK ((date_trunc('minute'::text, minute) = minute)),
    CONSTRAINT call_minutes_process_check CHECK (((length(process) >= 1) AND (length(process) <= 200))),
    CONSTRAINT call_minutes_target_check CHECK ((target = ANY (ARRAY['verify_receipt.production'::text, 'verify_receipt.sandbox'::text, 'server_api.production'::text, 'server_api.sandbox'::text, 'webhooks'::text])))
);


--
-- Name: TABLE call_minutes; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.call_minutes IS 'Per minute (UTC, truncated), call target and process (a worker''s --name, or the scheduler): calls made, how many failed (no answer, or Apple''s trouble / the endpoint''s non-2xx), their latency as counts per bucket (upper bounds in ms: 10 20 30 50 75 100 150 200 300 500 750 1000 1500 2000 3000 4000 5000 6000 8000 10000 15000 30000, then any), and the worst circuit-breaker state the process saw for that target in the minute. Kept 7 days.';


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
    trace_parent text,
    CONSTRAINT jobs_finished_check CHECK (((state = ANY (ARRAY['granted'::text, 'already_granted'::text, 'rejected'::text, 'failed'::text, 'resubmit'::text, 'owned_elsewhere'::text])) = (finished_at IS NOT NULL))),
    CONSTRAINT jobs_kind_check CHECK ((kind = ANY (ARRAY['receipt'::text, 'signed_transaction'::text, 'transaction_id'::text]))),
    CONSTRAINT jobs_lease_check CHECK (((state = 'verifying'::text) = ((locked_by IS NOT NULL) AND (locked_until IS NOT NULL)))),
    CONSTRAINT jobs_payload_check CHECK ((((kind = 'receipt'::text) = (receipt_data IS NOT NULL)) AND ((kind = 'signed_transaction'::text) = (signed_transaction IS NOT NULL)))),
    CONSTRAINT jobs_request_id_check CHECK (((request_id IS NULL) OR (((length(request_id) >= 1) AND (length(request_id) <= 128)) AND (request_id ~ '^[A-Za-z0-9._:/+=-]+$'::text)))),
    CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'verifying'::text, 'timed_out'::text, 'granted'::text, 'already_granted'::text, 'rejected'::text, 'failed'::text, 'resubmit'::text, 'owned_elsewhere'::text]))),
    CONSTRAINT jobs_trace_parent_check CHECK (((trace_parent IS NULL) OR (trace_parent ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'::text))),
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
-- Name: COLUMN jobs.trace_parent; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.jobs.trace_parent IS 'The W3C traceparent (00-<trace id>-<span id>-<flags>) of the API span that queued the job, when tracing is on; the worker''s spans continue it.';


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
    head boolean DEFAULT false NOT NULL,
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
-- Name: COLUMN deliveries.head; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.deliveries.head IS 'The one delivery of its (endpoint, user) that may be claimed or is out: the oldest pending one, unless the head is out with a deliverer. Kept by receiptq.track_delivery_heads (triggers); never written by hand.';


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
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    trace_parent text,
    CONSTRAINT events_trace_parent_check CHECK (((trace_parent IS NULL) OR (trace_parent ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'::text)))
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
-- Name: COLUMN events.trace_parent; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.events.trace_parent IS 'The traceparent of the job whose verdict appended the event (receiptq.jobs.trace_parent); its webhook deliveries continue the trace.';


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
-- Name: owners; Type: TABLE; Schema: receiptq; Owner: -
--

CREATE TABLE receiptq.owners (
    original_transaction_id text NOT NULL,
    user_id text NOT NULL,
    environment text NOT NULL,
    source text NOT NULL,
    order_id text,
    ownership_type text DEFAULT 'PURCHASED'::text NOT NULL,
    decided_at timestamp with time zone DEFAULT now() NOT NULL,
    changed_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT owners_environment_check CHECK ((environment = ANY (ARRAY['Production'::text, 'Sandbox'::text]))),
    CONSTRAINT owners_ownership_type_check CHECK ((ownership_type = ANY (ARRAY['PURCHASED'::text, 'FAMILY_SHARED'::text]))),
    CONSTRAINT owners_source_check CHECK ((source = ANY (ARRAY['token'::text, 'proof'::text, 'claim'::text, 'transfer'::text, 'manual'::text, 'migration'::text])))
);


--
-- Name: TABLE owners; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON TABLE receiptq.owners IS 'Whose purchase each original transaction is, for its whole life (DESIGN: Ownership): every period, renewal, upgrade, restore, notification and status check follows this user. Written with the first grant; moved only by support''s transfer or an Apple-signed appAccountToken naming another account''s pending order (receiptq.move_ownership).';


--
-- Name: COLUMN owners.source; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.owners.source IS 'How the owner was decided: token (an Apple-signed appAccountToken names the user''s order), proof (the first submitter with a receipt or signed transaction), claim (a transaction id from a backend trusted for claims), transfer (support, or a token naming a new order), manual (support''s manual grant), migration (0035: the user of the first grant).';


--
-- Name: COLUMN owners.order_id; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.owners.order_id IS 'The order that decided it (its token, or the order the first grant fulfilled); NULL when none.';


--
-- Name: COLUMN owners.ownership_type; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON COLUMN receiptq.owners.ownership_type IS 'PURCHASED, or FAMILY_SHARED (a family member''s access): as its first grant said it. Every later purchase key of the original transaction follows it — a receipt made before iOS 14 names no ownership type, the signed transaction of the same period does: one purchase, one key.';


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
-- Name: api_rate_budgets api_rate_budgets_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.api_rate_budgets
    ADD CONSTRAINT api_rate_budgets_pkey PRIMARY KEY (bundle_id, endpoint, environment);


--
-- Name: app_transactions app_transactions_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.app_transactions
    ADD CONSTRAINT app_transactions_pkey PRIMARY KEY (app_transaction_id, environment);


--
-- Name: call_minutes call_minutes_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.call_minutes
    ADD CONSTRAINT call_minutes_pkey PRIMARY KEY (minute, target, process);


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
-- Name: owners owners_original_transaction_id_user_id_key; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.owners
    ADD CONSTRAINT owners_original_transaction_id_user_id_key UNIQUE (original_transaction_id, user_id);


--
-- Name: owners owners_pkey; Type: CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.owners
    ADD CONSTRAINT owners_pkey PRIMARY KEY (original_transaction_id);


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
-- Name: app_transactions_user_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX app_transactions_user_idx ON receiptq.app_transactions USING btree (user_id);


--
-- Name: consumption_requests_lease_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX consumption_requests_lease_idx ON receiptq.consumption_requests USING btree (locked_until) WHERE (state = 'sending'::text);


--
-- Name: consumption_requests_ready_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX consumption_requests_ready_idx ON receiptq.consumption_requests USING btree (run_at) WHERE (state = 'queued'::text);


--
-- Name: deliveries_due_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX deliveries_due_idx ON receiptq.deliveries USING btree (endpoint_id, run_at, event_sequence) WHERE (head AND (state = 'queued'::text));


--
-- Name: deliveries_event_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX deliveries_event_idx ON receiptq.deliveries USING btree (event_sequence);


--
-- Name: deliveries_failed_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX deliveries_failed_idx ON receiptq.deliveries USING btree (endpoint_id, created_at) WHERE (state = 'failed'::text);


--
-- Name: deliveries_head_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE UNIQUE INDEX deliveries_head_idx ON receiptq.deliveries USING btree (endpoint_id, user_id) WHERE head;


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
-- Name: events_job_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX events_job_idx ON receiptq.events USING btree (job_id) WHERE (job_id IS NOT NULL);


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
-- Name: owners_user_idx; Type: INDEX; Schema: receiptq; Owner: -
--

CREATE INDEX owners_user_idx ON receiptq.owners USING btree (user_id);


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
-- Name: deliveries deliveries_head_ended; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER deliveries_head_ended BEFORE UPDATE OF state ON receiptq.deliveries FOR EACH ROW WHEN ((old.head AND (new.state <> ALL (ARRAY['queued'::text, 'delivering'::text])))) EXECUTE FUNCTION receiptq.track_delivery_heads();


--
-- Name: deliveries deliveries_heads_deleted; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER deliveries_heads_deleted AFTER DELETE ON receiptq.deliveries REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION receiptq.track_delivery_heads();


--
-- Name: deliveries deliveries_heads_inserted; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER deliveries_heads_inserted AFTER INSERT ON receiptq.deliveries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION receiptq.track_delivery_heads();


--
-- Name: deliveries deliveries_heads_updated; Type: TRIGGER; Schema: receiptq; Owner: -
--

CREATE TRIGGER deliveries_heads_updated AFTER UPDATE ON receiptq.deliveries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION receiptq.track_delivery_heads();


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
-- Name: grants grants_owner_fkey; Type: FK CONSTRAINT; Schema: receiptq; Owner: -
--

ALTER TABLE ONLY receiptq.grants
    ADD CONSTRAINT grants_owner_fkey FOREIGN KEY (original_transaction_id, user_id) REFERENCES receiptq.owners(original_transaction_id, user_id) ON UPDATE CASCADE;


--
-- Name: CONSTRAINT grants_owner_fkey ON grants; Type: COMMENT; Schema: receiptq; Owner: -
--

COMMENT ON CONSTRAINT grants_owner_fkey ON receiptq.grants IS 'Every grant belongs to its original transaction''s owner; moving the owner (receiptq.move_owner) moves every grant of it.';


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
-- Name: FUNCTION move_owner(p_original_transaction_id text, p_to_user text, p_source text, p_order_id text, p_reason text); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.move_owner(p_original_transaction_id text, p_to_user text, p_source text, p_order_id text, p_reason text) FROM PUBLIC;


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
-- Name: FUNCTION refuse_audit_change(); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.refuse_audit_change() FROM PUBLIC;


--
-- Name: FUNCTION schedule_reconciliation(); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.schedule_reconciliation() FROM PUBLIC;


--
-- Name: FUNCTION support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text, p_product_type text, p_expires_at timestamp with time zone); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text, p_product_type text, p_expires_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text, p_product_type text, p_expires_at timestamp with time zone) TO receiptq_support;


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
-- Name: FUNCTION take_owner_by_token(p_original_transaction_id text, p_order_id text); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.take_owner_by_token(p_original_transaction_id text, p_order_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.take_owner_by_token(p_original_transaction_id text, p_order_id text) TO receiptq_worker;


--
-- Name: FUNCTION track_delivery_heads(); Type: ACL; Schema: receiptq; Owner: -
--

REVOKE ALL ON FUNCTION receiptq.track_delivery_heads() FROM PUBLIC;


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
GRANT INSERT(bundle_id) ON TABLE receiptq.api_rate_budgets TO receiptq_support;


--
-- Name: COLUMN api_rate_budgets.endpoint; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(endpoint) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(endpoint) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;
GRANT INSERT(endpoint) ON TABLE receiptq.api_rate_budgets TO receiptq_support;


--
-- Name: COLUMN api_rate_budgets.environment; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(environment) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(environment) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;
GRANT INSERT(environment) ON TABLE receiptq.api_rate_budgets TO receiptq_support;


--
-- Name: COLUMN api_rate_budgets.rate_per_second; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(rate_per_second),UPDATE(rate_per_second) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(rate_per_second),UPDATE(rate_per_second) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;
GRANT INSERT(rate_per_second),UPDATE(rate_per_second) ON TABLE receiptq.api_rate_budgets TO receiptq_support;


--
-- Name: COLUMN api_rate_budgets.capacity; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(capacity),UPDATE(capacity) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(capacity),UPDATE(capacity) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;
GRANT INSERT(capacity),UPDATE(capacity) ON TABLE receiptq.api_rate_budgets TO receiptq_support;


--
-- Name: COLUMN api_rate_budgets.tokens; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(tokens),UPDATE(tokens) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(tokens),UPDATE(tokens) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;
GRANT INSERT(tokens),UPDATE(tokens) ON TABLE receiptq.api_rate_budgets TO receiptq_support;


--
-- Name: COLUMN api_rate_budgets.refilled_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(refilled_at),UPDATE(refilled_at) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT INSERT(refilled_at),UPDATE(refilled_at) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;
GRANT INSERT(refilled_at),UPDATE(refilled_at) ON TABLE receiptq.api_rate_budgets TO receiptq_support;


--
-- Name: COLUMN api_rate_budgets.paused_until; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(paused_until) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT UPDATE(paused_until) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;
GRANT UPDATE(paused_until) ON TABLE receiptq.api_rate_budgets TO receiptq_support;


--
-- Name: COLUMN api_rate_budgets.granted_total; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(granted_total) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT UPDATE(granted_total) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;
GRANT UPDATE(granted_total) ON TABLE receiptq.api_rate_budgets TO receiptq_support;


--
-- Name: COLUMN api_rate_budgets.pauses_total; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(pauses_total) ON TABLE receiptq.api_rate_budgets TO receiptq_worker;
GRANT UPDATE(pauses_total) ON TABLE receiptq.api_rate_budgets TO receiptq_scheduler;
GRANT UPDATE(pauses_total) ON TABLE receiptq.api_rate_budgets TO receiptq_support;


--
-- Name: TABLE api_rate_budget_status; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.api_rate_budget_status TO receiptq_readonly;


--
-- Name: TABLE app_transactions; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT,INSERT ON TABLE receiptq.app_transactions TO receiptq_api;
GRANT SELECT ON TABLE receiptq.app_transactions TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.app_transactions TO receiptq_readonly;


--
-- Name: COLUMN app_transactions.application_version; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(application_version) ON TABLE receiptq.app_transactions TO receiptq_api;


--
-- Name: COLUMN app_transactions.signed_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(signed_at) ON TABLE receiptq.app_transactions TO receiptq_api;


--
-- Name: COLUMN app_transactions.updated_at; Type: ACL; Schema: receiptq; Owner: -
--

GRANT UPDATE(updated_at) ON TABLE receiptq.app_transactions TO receiptq_api;


--
-- Name: TABLE call_minutes; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT ON TABLE receiptq.call_minutes TO receiptq_readonly;
GRANT SELECT,INSERT,UPDATE ON TABLE receiptq.call_minutes TO receiptq_worker;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE receiptq.call_minutes TO receiptq_scheduler;


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
-- Name: COLUMN jobs.trace_parent; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT(trace_parent),INSERT(trace_parent) ON TABLE receiptq.jobs TO receiptq_api;
GRANT INSERT(trace_parent) ON TABLE receiptq.jobs TO receiptq_worker;
GRANT SELECT(trace_parent) ON TABLE receiptq.jobs TO receiptq_scheduler;
GRANT SELECT(trace_parent) ON TABLE receiptq.jobs TO receiptq_readonly;


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
-- Name: COLUMN events.trace_parent; Type: ACL; Schema: receiptq; Owner: -
--

GRANT INSERT(trace_parent) ON TABLE receiptq.events TO receiptq_worker;


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
-- Name: TABLE owners; Type: ACL; Schema: receiptq; Owner: -
--

GRANT SELECT,INSERT ON TABLE receiptq.owners TO receiptq_worker;
GRANT SELECT ON TABLE receiptq.owners TO receiptq_api;
GRANT SELECT ON TABLE receiptq.owners TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.owners TO receiptq_readonly;


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
