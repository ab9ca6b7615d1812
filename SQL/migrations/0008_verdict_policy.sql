-- The verdict policy: a paid purchase is never lost, one purchase is granted once.
--
-- 1. A new terminal state, `resubmit`: Apple verified the receipt but it does not (yet) hold the
--    transaction (the device sent a receipt made before the purchase). Not "not paid": the app
--    keeps the transaction unfinished, refreshes the receipt and submits again; the newer
--    submission supersedes this job (superseded_by).
-- 2. The ledger keys one row per purchase, whatever Apple's numbering (purchase_key): a restore
--    or another device brings a new transaction id for the same purchase.
-- 3. Grants record what Apple verified and what the client claimed, so a client claim that
--    differs is granted as Apple verified it and flagged for ops, never rejected.
-- 4. Job retention per outcome (receipts of rejected and failed jobs are kept): see Scheduler.

-- ---------------------------------------------------------------------------------------------
-- jobs
-- ---------------------------------------------------------------------------------------------
ALTER TABLE receiptq.jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE receiptq.jobs ADD CONSTRAINT jobs_state_check CHECK (state IN
    ('queued', 'verifying', 'timed_out', 'granted', 'already_granted', 'rejected', 'failed', 'resubmit')) NOT VALID;
ALTER TABLE receiptq.jobs VALIDATE CONSTRAINT jobs_state_check;
ALTER TABLE receiptq.jobs DROP CONSTRAINT jobs_finished_check;
ALTER TABLE receiptq.jobs ADD CONSTRAINT jobs_finished_check CHECK (
    (state IN ('granted', 'already_granted', 'rejected', 'failed', 'resubmit')) = (finished_at IS NOT NULL)) NOT VALID;
ALTER TABLE receiptq.jobs VALIDATE CONSTRAINT jobs_finished_check;

ALTER TABLE receiptq.jobs
    ADD COLUMN purchase_key text,
    ADD COLUMN superseded_by bigint;
COMMENT ON COLUMN receiptq.jobs.purchase_key IS
    'granted / already_granted: the ledger row (receiptq.grants.purchase_key) this job delivered or found.';
COMMENT ON COLUMN receiptq.jobs.superseded_by IS
    'resubmit: the later submission of the same transaction (a newer receipt) that took over.';
COMMENT ON COLUMN receiptq.jobs.bounded_answers IS
    '21004 answers so far (our shared secret refused for this receipt): the job ends failed after a few.';
COMMENT ON COLUMN receiptq.jobs.state IS
    'queued, verifying, timed_out (not terminal), granted, already_granted, rejected, failed, resubmit (terminal).';

DROP INDEX receiptq.jobs_finished_idx;
CREATE INDEX jobs_finished_idx ON receiptq.jobs (finished_at, state)
    WHERE state IN ('granted', 'already_granted', 'rejected', 'failed', 'resubmit');
-- A newer submission of a transaction finds the resubmit jobs it supersedes.
CREATE INDEX jobs_resubmit_idx ON receiptq.jobs (transaction_id) WHERE state = 'resubmit';

-- Outcomes in the last minute and hour, the new state included.
CREATE OR REPLACE VIEW receiptq.outcomes AS
    SELECT s.state,
           count(j.finished_at) FILTER (WHERE j.finished_at > now() - interval '1 minute') AS last_minute,
           count(j.finished_at) AS last_hour
    FROM (VALUES ('granted'), ('already_granted'), ('rejected'), ('failed'), ('resubmit')) AS s(state)
    LEFT JOIN receiptq.jobs j                                        -- jobs_finished_idx range
           ON j.state = s.state
          AND j.finished_at > now() - interval '1 hour'
          AND j.state IN ('granted', 'already_granted', 'rejected', 'failed', 'resubmit')
    GROUP BY s.state;

-- ---------------------------------------------------------------------------------------------
-- products: an optional catalog. Without it the ledger infers a product's type from Apple's
-- answer (an expiry date: an auto-renewable subscription; else a one-time purchase).
-- ---------------------------------------------------------------------------------------------
CREATE TABLE receiptq.products (
    product_id  text PRIMARY KEY,
    type        text NOT NULL,
    CONSTRAINT products_type_check CHECK (type IN ('consumable', 'non_consumable', 'auto_renewable', 'non_renewing'))
);
COMMENT ON TABLE receiptq.products IS
    'Optional catalog: product id -> type. Overrides what the ledger infers from Apple''s answer.';

-- ---------------------------------------------------------------------------------------------
-- grants: one row per purchase.
-- ---------------------------------------------------------------------------------------------
ALTER TABLE receiptq.grants
    ADD COLUMN purchase_key text,
    ADD COLUMN product_type text,
    ADD COLUMN ownership_type text NOT NULL DEFAULT 'PURCHASED',
    ADD COLUMN web_order_line_item_id text,
    ADD COLUMN expires_date timestamptz,
    ADD COLUMN claimed_product_id text,
    ADD COLUMN order_mismatch boolean NOT NULL DEFAULT false,
    ADD COLUMN revoked_at timestamptz,
    ADD COLUMN revocation_reason text,
    ADD CONSTRAINT grants_ownership_check CHECK (ownership_type IN ('PURCHASED', 'FAMILY_SHARED')),
    ADD CONSTRAINT grants_product_type_check CHECK (product_type IN ('consumable', 'non_consumable', 'auto_renewable', 'non_renewing'));

-- Rows granted before: one purchase per original transaction (the first row keeps it; a second
-- row of the same purchase, granted twice by the old rule, keeps its transaction id as its key).
UPDATE receiptq.grants g
SET purchase_key = CASE WHEN g.transaction_id = f.first_transaction THEN 'purchase:' || g.original_transaction_id
                        ELSE 'transaction:' || g.transaction_id END
FROM (SELECT original_transaction_id, min(transaction_id) AS first_transaction
      FROM receiptq.grants GROUP BY original_transaction_id) AS f
WHERE f.original_transaction_id = g.original_transaction_id;
-- The purchase, not Apple's transaction id, is what the ledger holds once: a family member's
-- entitlement may carry the purchaser's transaction id, and a restore carries a new one.
CREATE UNIQUE INDEX grants_purchase_key_idx ON receiptq.grants (purchase_key);
ALTER TABLE receiptq.grants DROP CONSTRAINT grants_pkey;
ALTER TABLE receiptq.grants ADD CONSTRAINT grants_pkey PRIMARY KEY USING INDEX grants_purchase_key_idx;
CREATE INDEX grants_transaction_idx ON receiptq.grants (transaction_id);

COMMENT ON TABLE receiptq.grants IS
    'The ledger: one row per purchase (purchase_key), written in the same transaction that ends the job. Never deleted; a refund revokes a row, it does not remove it.';
COMMENT ON COLUMN receiptq.grants.purchase_key IS
    'What makes a purchase one purchase: purchase:<original transaction id> (consumables, non-consumables and their restores, non-renewing), period:<web order line item id> (one auto-renewable subscription period and its restores), family:<user>:<…> for a family member''s entitlement.';
COMMENT ON COLUMN receiptq.grants.product_type IS 'From receiptq.products, else inferred (auto_renewable when Apple gave an expiry); NULL: a one-time purchase of unknown kind.';
COMMENT ON COLUMN receiptq.grants.ownership_type IS 'PURCHASED, or FAMILY_SHARED (a family member''s entitlement: never fulfils an order).';
COMMENT ON COLUMN receiptq.grants.claimed_product_id IS 'The product the client claimed when it differed from Apple''s (granted as Apple verified it).';
COMMENT ON COLUMN receiptq.grants.order_mismatch IS 'The order the client named is for another product: not fulfilled by this grant.';
COMMENT ON COLUMN receiptq.grants.revoked_at IS 'Apple refunded or revoked the purchase after it was granted (the row stays).';

-- Newest first, with a keyset cursor (granted_at, purchase_key): the API's grants listing.
DROP INDEX receiptq.grants_user_idx;
CREATE INDEX grants_user_idx ON receiptq.grants (user_id, granted_at, purchase_key);

-- Grants ops should look at: paid but not matched to an order, or the client's claim differed.
CREATE VIEW receiptq.flagged_grants AS
    SELECT transaction_id, purchase_key, user_id, product_id, claimed_product_id, order_id, unmatched, order_mismatch,
           ownership_type, environment, granted_at
    FROM receiptq.grants
    WHERE unmatched OR order_mismatch OR claimed_product_id IS NOT NULL;
COMMENT ON VIEW receiptq.flagged_grants IS
    'Grants whose client claims differed from what Apple verified, or that matched no order: paid, granted, to reconcile.';

-- ---------------------------------------------------------------------------------------------
-- receiptq.record_purchase: the ledger write for one verified transaction, called by workers for
-- a whole batch in one statement, inside the transaction that ends the jobs (fenced).
--
-- Decides, in this order:
--   1. the purchase key: family:<user>:<…> for FAMILY_SHARED; period:<web order line item id>
--      for an auto-renewable subscription (catalog, else Apple gave an expiry); purchase:<transaction
--      id> for a catalog consumable; purchase:<original transaction id> otherwise (a consumable's
--      original transaction id is its own id; restores of anything else keep the original's);
--   2. already_granted — a row with that key exists (or, for a row granted before keys existed,
--      that transaction id), for whichever user (another_user tells the worker it was another's);
--   3. the order: the job's order when it is this user's pending order for Apple's product; an
--      order for another product is flagged (order_mismatch) and not fulfilled; otherwise the
--      user's oldest pending order for the product; none: unmatched (the user paid). A family
--      member's entitlement never fulfils an order;
--   4. granted — the row is inserted, the matched order marked fulfilled.
-- A transaction-scoped advisory lock per purchase key serialises concurrent grants of one purchase
-- across workers. Callers sort their batch by key to take these locks in one order.
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION receiptq.purchase_key(
    p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_user_id text,
    p_product_type text, p_ownership_type text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN p_ownership_type = 'FAMILY_SHARED' THEN 'family:' || p_user_id || ':' ELSE '' END
    || CASE WHEN p_product_type = 'auto_renewable' THEN 'period:' || coalesce(p_web_order_line_item_id, p_transaction_id)
            WHEN p_product_type = 'consumable' THEN 'purchase:' || p_transaction_id
            ELSE 'purchase:' || p_original_transaction_id END;

CREATE FUNCTION receiptq.record_purchase(
    p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text,
    p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamptz, p_expires_date timestamptz,
    p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text,
    OUT result text, OUT purchase_key text, OUT matched_order_id text, OUT unmatched boolean, OUT another_user boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_type text;
    v_existing receiptq.grants%ROWTYPE;
    v_order receiptq.orders%ROWTYPE;
    v_order_mismatch boolean := false;
    v_family boolean := p_ownership_type = 'FAMILY_SHARED';
BEGIN
    SELECT type INTO v_type FROM receiptq.products WHERE product_id = p_product_id;            -- products_pkey
    IF v_type IS NULL AND p_expires_date IS NOT NULL THEN v_type := 'auto_renewable'; END IF;
    purchase_key := receiptq.purchase_key(p_transaction_id, p_original_transaction_id, p_web_order_line_item_id,
                                          p_user_id, v_type, p_ownership_type);
    PERFORM pg_advisory_xact_lock(hashtextextended('receiptq.purchase:' || purchase_key, 0));

    SELECT * INTO v_existing FROM receiptq.grants g
    WHERE g.purchase_key = record_purchase.purchase_key                                         -- grants_pkey
       OR (g.transaction_id = p_transaction_id AND g.purchase_key LIKE 'transaction:%')         -- grants_transaction_idx
    LIMIT 1;
    IF FOUND THEN
        result := 'already_granted';
        purchase_key := v_existing.purchase_key;
        matched_order_id := v_existing.order_id;
        unmatched := v_existing.unmatched;
        another_user := v_existing.user_id <> p_user_id;
        RETURN;
    END IF;

    IF NOT v_family AND p_order_id IS NOT NULL THEN
        SELECT * INTO v_order FROM receiptq.orders WHERE order_id = p_order_id FOR UPDATE;  -- orders_pkey
        IF FOUND AND v_order.product_id <> p_product_id THEN
            v_order_mismatch := true;
            v_order := NULL;
        ELSIF FOUND AND (v_order.state <> 'pending' OR v_order.user_id <> p_user_id) THEN
            v_order := NULL;   -- spent or someone else's: fall back to the user's own pending orders
        END IF;
    END IF;
    IF NOT v_family AND v_order.order_id IS NULL THEN
        -- Apple sometimes drops applicationUsername: the user's oldest pending order for the product.
        SELECT * INTO v_order FROM receiptq.orders                      -- orders_pending_idx
        WHERE user_id = p_user_id AND product_id = p_product_id AND state = 'pending'
        ORDER BY created_at, order_id
        LIMIT 1
        FOR UPDATE SKIP LOCKED;
    END IF;

    INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, quantity,
                                 purchase_date, environment, order_id, unmatched, purchase_key, product_type,
                                 ownership_type, web_order_line_item_id, expires_date, claimed_product_id, order_mismatch)
    VALUES (p_transaction_id, p_original_transaction_id, p_job_id, p_user_id, p_product_id, p_quantity,
            p_purchase_date, p_environment, v_order.order_id, v_order.order_id IS NULL, purchase_key, v_type,
            p_ownership_type, p_web_order_line_item_id, p_expires_date,
            CASE WHEN p_claimed_product_id <> p_product_id THEN p_claimed_product_id END, v_order_mismatch);

    IF v_order.order_id IS NOT NULL THEN
        UPDATE receiptq.orders SET state = 'fulfilled', fulfilled_at = now() WHERE order_id = v_order.order_id;
    END IF;

    result := 'granted';
    matched_order_id := v_order.order_id;
    unmatched := v_order.order_id IS NULL;
    another_user := false;
END $$;

COMMENT ON FUNCTION receiptq.record_purchase IS
    'Ledger write for one verified transaction, one row per purchase: already_granted | granted (with the matched order, or unmatched).';
