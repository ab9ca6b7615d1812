-- Ownership: a paid purchase reaches the user who paid, and nobody else (DESIGN: Ownership).
--
-- Before this migration a submission was deduplicated without its user, so a replay of someone
-- else's receipt or signed transaction read the first buyer's `delivered`; a bare transaction id
-- was granted to whoever claimed it; a family-shared transaction was keyed by the submitting
-- user, so one JWS unlocked any number of accounts; the verdict was a function of the job's state
-- alone, so a role that could write `state` could forge `delivered`. Now:
--
-- 1. Deduplication keys include the user: receipts on (digest, transaction id, user); signed
--    transactions on what Apple signed — (transaction id, environment, user) — never on signature
--    bytes (ES256 signatures are malleable, and Apple re-signs).
-- 2. The ledger decides ownership (receiptq.record_purchase): the user of the order named by an
--    Apple-signed appAccountToken owns the purchase, whoever submits it; else the first submitter
--    with proof (a receipt Apple or our local check verified to hold the transaction, or a verified
--    JWS). A bare transaction id is a claim: granted only to the token's owner, or when the backend
--    token that sent it is trusted for transaction-id claims (jobs.trusted_claim). A submission that
--    loses ends in the new terminal state `owned_elsewhere`.
-- 3. The verdict is read from the ledger, in one place (receiptq.verdict): `delivered` only to the
--    job that created the owner's grant, `already_delivered` to the owner's other jobs,
--    `owned_by_another_user` to anyone else, `revoked` as soon as a refund or revocation is recorded.
-- 4. Family-shared grants are keyed by the family member's own transactions as Apple numbers them
--    (family:purchase:<original transaction id>, family:period:<original transaction id>:<period>),
--    never by our user: one grant per family member's purchase, replays by other accounts read
--    `owned_by_another_user`.
-- 5. Roles that cannot lie: `granted` / `already_granted` need a ledger row (constraint and foreign
--    key); events are appended by one function that derives them from the rows (the scheduler may
--    only append `job.failed` for jobs its own transaction gave up); webhook deliveries fan out from
--    a trigger, so no caller writes deliveries by hand.

-- ---------------------------------------------------------------------------------------------
-- jobs: the new terminal state, trusted claims, deduplication per user
-- ---------------------------------------------------------------------------------------------
ALTER TABLE receiptq.jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE receiptq.jobs ADD CONSTRAINT jobs_state_check CHECK (state IN
    ('queued', 'verifying', 'timed_out', 'granted', 'already_granted', 'rejected', 'failed', 'resubmit', 'owned_elsewhere')) NOT VALID;
ALTER TABLE receiptq.jobs VALIDATE CONSTRAINT jobs_state_check;
ALTER TABLE receiptq.jobs DROP CONSTRAINT jobs_finished_check;
ALTER TABLE receiptq.jobs ADD CONSTRAINT jobs_finished_check CHECK (
    (state IN ('granted', 'already_granted', 'rejected', 'failed', 'resubmit', 'owned_elsewhere')) = (finished_at IS NOT NULL)) NOT VALID;
ALTER TABLE receiptq.jobs VALIDATE CONSTRAINT jobs_finished_check;
COMMENT ON COLUMN receiptq.jobs.state IS
    'queued, verifying, timed_out (not terminal); granted, already_granted, rejected, failed, resubmit, owned_elsewhere (terminal).';

ALTER TABLE receiptq.jobs ADD COLUMN trusted_claim boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN receiptq.jobs.trusted_claim IS
    'transaction_id jobs: the backend token that submitted it is trusted to vouch for the user (receiptq api --trusted-claim-tokens), so the claim counts as proof.';

DROP INDEX receiptq.jobs_finished_idx;
CREATE INDEX jobs_finished_idx ON receiptq.jobs (finished_at, state)
    WHERE state IN ('granted', 'already_granted', 'rejected', 'failed', 'resubmit', 'owned_elsewhere');

-- Receipts: the same receipt and transaction from the same user is the same job; from another
-- user it is a submission of its own, with a verdict of its own.
DROP INDEX receiptq.jobs_dedupe_idx;
CREATE UNIQUE INDEX jobs_dedupe_idx ON receiptq.jobs (receipt_sha256, transaction_id, user_id);
-- Signed transactions: what Apple signed, never the signature's bytes. apple_environment is set
-- at insert for this kind (the API verified the signature) and never changes. Earlier jobs of one
-- user for one transaction under different signature bytes (an updated JWS) keep their rows; all
-- but the newest lose their environment, so the unique index takes them (NULLs are distinct).
DROP INDEX receiptq.jobs_signed_dedupe_idx;
UPDATE receiptq.jobs j SET apple_environment = NULL
FROM (SELECT id, row_number() OVER (PARTITION BY transaction_id, user_id, apple_environment ORDER BY id DESC) AS rank
      FROM receiptq.jobs WHERE kind = 'signed_transaction' AND apple_environment IS NOT NULL) AS d
WHERE j.id = d.id AND d.rank > 1;
ALTER TABLE receiptq.jobs DROP COLUMN signed_sha256;
CREATE UNIQUE INDEX jobs_signed_dedupe_idx ON receiptq.jobs (transaction_id, user_id, apple_environment)
    WHERE kind = 'signed_transaction';

-- ---------------------------------------------------------------------------------------------
-- The purchase key, without our user: family-shared grants are keyed by the family member's own
-- transactions. Existing family keys (family:<user>:…) move to the new form; where two users held
-- the same family purchase (the replay this closes), the first grant takes the new key and the
-- others keep theirs (history stays as it was).
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION receiptq.purchase_key(
    p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text,
    p_product_type text, p_ownership_type text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE
    WHEN p_ownership_type = 'FAMILY_SHARED' THEN
        CASE WHEN p_product_type = 'auto_renewable'
             THEN 'family:period:' || p_original_transaction_id || ':' || coalesce(p_web_order_line_item_id, p_transaction_id)
             ELSE 'family:purchase:' || p_original_transaction_id END
    WHEN p_product_type = 'auto_renewable' THEN 'period:' || coalesce(p_web_order_line_item_id, p_transaction_id)
    WHEN p_product_type = 'consumable' THEN 'purchase:' || p_transaction_id
    ELSE 'purchase:' || p_original_transaction_id END;

CREATE TEMPORARY TABLE family_keys ON COMMIT DROP AS
    SELECT old_key, new_key
    FROM (SELECT g.purchase_key AS old_key,
                 receiptq.purchase_key(g.transaction_id, g.original_transaction_id, g.web_order_line_item_id, g.product_type,
                                       g.ownership_type) AS new_key,
                 row_number() OVER (PARTITION BY receiptq.purchase_key(g.transaction_id, g.original_transaction_id,
                                                                       g.web_order_line_item_id, g.product_type, g.ownership_type)
                                    ORDER BY g.granted_at, g.purchase_key) AS rank
          FROM receiptq.grants g
          WHERE g.ownership_type = 'FAMILY_SHARED') AS k
    WHERE rank = 1 AND old_key <> new_key
      AND NOT EXISTS (SELECT 1 FROM receiptq.grants taken WHERE taken.purchase_key = k.new_key);
UPDATE receiptq.jobs j SET purchase_key = f.new_key FROM family_keys f WHERE j.purchase_key = f.old_key;
UPDATE receiptq.events e SET purchase_key = f.new_key FROM family_keys f WHERE e.purchase_key = f.old_key;
UPDATE receiptq.grants g SET purchase_key = f.new_key FROM family_keys f WHERE g.purchase_key = f.old_key;

DROP FUNCTION receiptq.purchase_key(text, text, text, text, text, text);

-- ---------------------------------------------------------------------------------------------
-- A job that says granted or already_granted points at its ledger row. Jobs granted before
-- purchase_key existed (migration 0008) get theirs where the grant names the job; the rest are
-- history the constraints do not look back at (NOT VALID: enforced for every write from now on).
-- ---------------------------------------------------------------------------------------------
UPDATE receiptq.jobs j SET purchase_key = g.purchase_key
FROM receiptq.grants g
WHERE g.job_id = j.id AND j.purchase_key IS NULL AND j.state IN ('granted', 'already_granted');
ALTER TABLE receiptq.jobs ADD CONSTRAINT jobs_grant_check
    CHECK (state NOT IN ('granted', 'already_granted') OR purchase_key IS NOT NULL) NOT VALID;
-- No index on jobs.purchase_key: grants are never deleted and their keys never change (after the
-- rewrite above), so the foreign key never looks jobs up by key; an index would cost every grant.
ALTER TABLE receiptq.jobs ADD CONSTRAINT jobs_purchase_key_fkey
    FOREIGN KEY (purchase_key) REFERENCES receiptq.grants (purchase_key) NOT VALID;

-- ---------------------------------------------------------------------------------------------
-- receiptq.verdict: what a job means for the app that submitted it — the one home of the rule.
-- Read from the ledger, not from the job's state alone, so a state written by any role cannot
-- forge a delivery, and a refund reads `revoked` at once wherever the job is shown.
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION receiptq.verdict(
    p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamptz)
    RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE
    WHEN p_state = 'owned_elsewhere' THEN 'owned_by_another_user'
    WHEN p_state IN ('granted', 'already_granted') THEN CASE
        WHEN p_grant_user_id IS NULL THEN 'pending'                    -- no ledger row: nothing to deliver
        WHEN p_grant_user_id <> p_user_id THEN 'owned_by_another_user'
        WHEN p_revoked_at IS NOT NULL THEN 'revoked'
        WHEN p_grant_job_id = p_job_id THEN 'delivered'
        ELSE 'already_delivered' END
    WHEN p_state = 'rejected' THEN 'not_paid'
    WHEN p_state = 'resubmit' THEN 'resubmit'
    ELSE 'pending' END;
COMMENT ON FUNCTION receiptq.verdict IS
    'The verdict a job reads, from its state and its ledger row: delivered (this job created the submitter''s grant), already_delivered, owned_by_another_user, revoked, not_paid, resubmit, pending.';

-- ---------------------------------------------------------------------------------------------
-- receiptq.record_purchase: the ledger write for one verified transaction, with ownership.
--
-- Decides, under a transaction-scoped advisory lock per purchase key, in this order:
--   1. the purchase key (receiptq.purchase_key: catalog type, else Apple's, else an expiry means
--      auto-renewable);
--   2. a grant with that key exists: already_granted when it is this user's, owned_elsewhere when
--      it is another's;
--   3. the owner: the user of the order named by the Apple-signed appAccountToken
--      (p_app_account_token; never the client's claim). Another user's order: owned_elsewhere,
--      and no grant is written — the owner's own submission writes it and reads delivered;
--   4. without such an order: p_require_token holds it (token_required; family-shared purchases
--      are exempt: a family member's transaction carries no token of ours); a submission without
--      proof (p_proven false: a bare transaction id) is not enough (unproven); otherwise the first
--      submitter with proof owns it;
--   5. the order it fulfils: the token's order; else the client's claimed token or order id when
--      they name this user's pending order for Apple's product; else the user's oldest pending
--      order for the product; none: unmatched. A named order for another product is flagged
--      (order_mismatch) and not fulfilled;
--   6. granted: the row is inserted, the order fulfilled.
-- ---------------------------------------------------------------------------------------------
DROP FUNCTION receiptq.record_purchase(bigint, text, text, text, text, text, integer, timestamptz, timestamptz, text, text, text,
                                       text, text, uuid, text, bigint, text);

CREATE FUNCTION receiptq.record_purchase(
    p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text,
    p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamptz, p_expires_date timestamptz,
    p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text,
    p_product_type text, p_app_account_token uuid, p_claimed_app_account_token uuid, p_storefront text, p_price bigint,
    p_currency text, p_proven boolean, p_require_token boolean,
    OUT result text, OUT purchase_key text, OUT matched_order_id text, OUT unmatched boolean, OUT reason text)
LANGUAGE plpgsql AS $$
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

COMMENT ON FUNCTION receiptq.record_purchase IS
    'Ledger write for one verified transaction, one row per purchase, with its owner: granted | already_granted | owned_elsewhere | unproven (a bare claim) | token_required (policy).';

-- ---------------------------------------------------------------------------------------------
-- Events: appended by receiptq.append_job_events (verdicts and give-ups, derived from the rows),
-- fanned out to webhook deliveries by a trigger on every insert. The scheduler appends through
-- receiptq.append_failed_job_events only, for jobs its own transaction gave up.
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION receiptq.append_job_events(p_jobs bigint[]) RETURNS integer
LANGUAGE plpgsql AS $$
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
               'purchase', CASE WHEN g.purchase_key IS NOT NULL AND g.user_id = j.user_id THEN jsonb_build_object(
                   'purchase_key', g.purchase_key, 'transaction_id', g.transaction_id,
                   'original_transaction_id', g.original_transaction_id, 'product_id', g.product_id,
                   'quantity', g.quantity, 'environment', g.environment, 'ownership_type', g.ownership_type,
                   'order_id', g.order_id, 'expires_at', g.expires_date, 'revoked_at', g.revoked_at) END))
    FROM receiptq.jobs j                                                            -- primary key
    LEFT JOIN receiptq.grants g ON g.purchase_key = j.purchase_key                  -- grants_pkey
    CROSS JOIN LATERAL (SELECT receiptq.verdict(j.state, j.id, j.user_id, g.user_id, g.job_id, g.revoked_at) AS verdict) AS v
    WHERE j.id = ANY(p_jobs) AND j.finished_at IS NOT NULL
    ORDER BY j.id;
    GET DIAGNOSTICS v_appended = ROW_COUNT;
    RETURN v_appended;
END $$;
COMMENT ON FUNCTION receiptq.append_job_events(bigint[]) IS
    'Appends one event per finished job of p_jobs (verdict.<verdict>, or job.failed), derived from the job and its ledger row. Run last in the transaction that finished them.';

CREATE FUNCTION receiptq.append_failed_job_events(p_jobs bigint[]) RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    -- finished_at = now(): only jobs this very transaction gave up (now() is the transaction's
    -- start), so a caller cannot replay events for anything else.
    SELECT receiptq.append_job_events(array_agg(j.id))
    FROM receiptq.jobs j
    WHERE j.id = ANY(p_jobs) AND j.state = 'failed' AND j.finished_at = now();
$$;
COMMENT ON FUNCTION receiptq.append_failed_job_events(bigint[]) IS
    'The scheduler''s only way to append events: job.failed for jobs its own transaction gave up.';

-- One trigger fans every appended event out to the webhook endpoints that want it, and wakes the
-- deliverers: no statement that appends events writes deliveries itself. Runs as the owner, so
-- no appending role needs a privilege on deliveries.
DROP TRIGGER events_notify_appended ON receiptq.events;
DROP FUNCTION receiptq.notify_events_appended();
CREATE FUNCTION receiptq.fan_out_events() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
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
CREATE TRIGGER events_fan_out AFTER INSERT ON receiptq.events
    REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION receiptq.fan_out_events();

-- Ops: who tried to take a purchase that is not theirs.
CREATE VIEW receiptq.ownership_refusals AS
    SELECT j.id AS job_id, j.kind, j.user_id AS submitted_by, j.transaction_id, j.outcome_reason AS reason,
           g.user_id AS owner, j.purchase_key, j.finished_at
    FROM receiptq.jobs j
    LEFT JOIN receiptq.grants g ON g.purchase_key = j.purchase_key
    WHERE j.state = 'owned_elsewhere' AND j.finished_at > now() - interval '7 days';   -- jobs_finished_idx
COMMENT ON VIEW receiptq.ownership_refusals IS
    'Submissions of the last 7 days that lost ownership of a purchase (a replay under another account, or a token naming another account''s order).';

-- Outcomes per terminal state, the new one included.
CREATE OR REPLACE VIEW receiptq.outcomes AS
    SELECT s.state,
           count(j.finished_at) FILTER (WHERE j.finished_at > now() - interval '1 minute') AS last_minute,
           count(j.finished_at) AS last_hour
    FROM (VALUES ('granted'), ('already_granted'), ('rejected'), ('failed'), ('resubmit'), ('owned_elsewhere')) AS s(state)
    LEFT JOIN receiptq.jobs j                                        -- jobs_finished_idx range
           ON j.state = s.state
          AND j.finished_at > now() - interval '1 hour'
          AND j.state IN ('granted', 'already_granted', 'rejected', 'failed', 'resubmit', 'owned_elsewhere')
    GROUP BY s.state;

-- ---------------------------------------------------------------------------------------------
-- Roles (0011): each login may do exactly this.
-- ---------------------------------------------------------------------------------------------
REVOKE ALL ON FUNCTION receiptq.purchase_key(text, text, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION receiptq.verdict(text, bigint, text, text, bigint, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION receiptq.record_purchase(bigint, text, text, text, text, text, integer, timestamptz, timestamptz, text, text,
                                                text, text, text, uuid, uuid, text, bigint, text, boolean, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION receiptq.append_job_events(bigint[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION receiptq.append_failed_job_events(bigint[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION receiptq.fan_out_events() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION receiptq.purchase_key(text, text, text, text, text) TO receiptq_worker;
GRANT EXECUTE ON FUNCTION receiptq.verdict(text, bigint, text, text, bigint, timestamptz)
    TO receiptq_api, receiptq_worker, receiptq_scheduler, receiptq_readonly;
GRANT EXECUTE ON FUNCTION receiptq.record_purchase(bigint, text, text, text, text, text, integer, timestamptz, timestamptz, text, text,
                                                   text, text, text, uuid, uuid, text, bigint, text, boolean, boolean) TO receiptq_worker;
GRANT EXECUTE ON FUNCTION receiptq.append_job_events(bigint[]) TO receiptq_worker;
GRANT EXECUTE ON FUNCTION receiptq.append_failed_job_events(bigint[]) TO receiptq_scheduler;

-- The API: signed transactions are inserted with the environment Apple signed; transaction-id
-- claims with whether their token is trusted.
GRANT INSERT (apple_environment, trusted_claim) ON receiptq.jobs TO receiptq_api;
GRANT SELECT (trusted_claim) ON receiptq.jobs TO receiptq_api, receiptq_scheduler, receiptq_readonly;
-- Workers queue a renewal Apple reported (a signed transaction) in the environment it was signed in
-- (the statement names trusted_claim too; it is false for signed transactions).
GRANT INSERT (apple_environment, trusted_claim) ON receiptq.jobs TO receiptq_worker;
-- Deliveries are written by the fan-out trigger (as the owner) and by nobody else.
REVOKE INSERT ON receiptq.deliveries FROM receiptq_worker, receiptq_scheduler;
-- The scheduler appends no event but through append_failed_job_events.
REVOKE INSERT ON receiptq.events FROM receiptq_scheduler;
GRANT SELECT ON receiptq.ownership_refusals TO receiptq_readonly;
