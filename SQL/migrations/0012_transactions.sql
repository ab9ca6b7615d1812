-- StoreKit 2 purchases and the way off verifyReceipt: jobs of more than one kind, one ledger.
--
-- A job now has a kind:
--   receipt             — a legacy app receipt (verifyReceipt, or the client's transaction id
--                         through the App Store Server API; the receipt is kept for audit);
--   signed_transaction  — a StoreKit 2 `jwsRepresentation`, verified locally (no call to Apple);
--   transaction_id      — an original-StoreKit app's transaction id, verified with the App Store
--                         Server API's Get Transaction Info under the fleet's rate budget.
-- Each kind is claimed separately, so a kind that waits for Apple's budget never blocks one that
-- does not. A purchase that arrives once as a receipt and once as a signed transaction is one
-- ledger row (the same purchase key).

ALTER TABLE receiptq.jobs
    ADD COLUMN kind text NOT NULL DEFAULT 'receipt',
    ADD COLUMN signed_transaction text,
    ADD COLUMN app_account_token uuid,
    ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('receipt', 'signed_transaction', 'transaction_id'));
ALTER TABLE receiptq.jobs ALTER COLUMN receipt_data DROP NOT NULL;
ALTER TABLE receiptq.jobs ALTER COLUMN receipt_sha256 DROP NOT NULL;   -- NULL for the other kinds (and distinct in jobs_dedupe_idx)
ALTER TABLE receiptq.jobs ADD CONSTRAINT jobs_payload_check CHECK (
    (kind = 'receipt') = (receipt_data IS NOT NULL)
    AND (kind = 'signed_transaction') = (signed_transaction IS NOT NULL)) NOT VALID;
ALTER TABLE receiptq.jobs VALIDATE CONSTRAINT jobs_payload_check;
ALTER TABLE receiptq.jobs ALTER COLUMN signed_transaction SET STORAGE EXTERNAL;
ALTER TABLE receiptq.jobs ADD COLUMN signed_sha256 bytea GENERATED ALWAYS AS (receiptq.receipt_digest(signed_transaction)) STORED;
COMMENT ON COLUMN receiptq.jobs.kind IS 'receipt, signed_transaction (StoreKit 2 JWS, verified locally) or transaction_id (App Store Server API).';
COMMENT ON COLUMN receiptq.jobs.signed_transaction IS 'StoreKit 2 jwsRepresentation as the app sent it. Never log it.';
COMMENT ON COLUMN receiptq.jobs.app_account_token IS 'The order''s UUID the app passed to StoreKit 2 (appAccountToken), when given.';

-- Dedupe of the new kinds: the same signed transaction (an updated one, e.g. after a refund, is a
-- new submission); the same transaction id for the same user.
CREATE UNIQUE INDEX jobs_signed_dedupe_idx ON receiptq.jobs (signed_sha256) WHERE signed_sha256 IS NOT NULL;
CREATE UNIQUE INDEX jobs_transaction_dedupe_idx ON receiptq.jobs (transaction_id, user_id) WHERE kind = 'transaction_id';
-- Claims per kind.
CREATE INDEX jobs_ready_kind_idx ON receiptq.jobs (kind, run_at, id) WHERE state = 'queued';

-- ---------------------------------------------------------------------------------------------
-- Orders carry an app_account_token: the app passes it as Product.PurchaseOption.appAccountToken,
-- and a transaction carrying it matches its order exactly.
-- ---------------------------------------------------------------------------------------------
ALTER TABLE receiptq.orders ADD COLUMN app_account_token uuid;
CREATE UNIQUE INDEX orders_app_account_token_idx ON receiptq.orders (app_account_token) WHERE app_account_token IS NOT NULL;
COMMENT ON COLUMN receiptq.orders.app_account_token IS 'UUID for StoreKit 2''s appAccountToken: a transaction carrying it fulfils this order.';

-- ---------------------------------------------------------------------------------------------
-- What the ledger records from a signed transaction.
-- ---------------------------------------------------------------------------------------------
ALTER TABLE receiptq.grants
    ADD COLUMN app_account_token uuid,
    ADD COLUMN storefront text,
    ADD COLUMN price bigint,
    ADD COLUMN currency text;
COMMENT ON COLUMN receiptq.grants.price IS 'As Apple reports it in signed transactions: milliunits of currency.';

-- What a user holds now: non-consumables and non-renewing purchases not revoked, and
-- subscription periods not yet expired. The GET /v1/users/{id}/entitlements resource.
CREATE INDEX grants_entitlement_idx ON receiptq.grants (user_id, product_id)
    WHERE revoked_at IS NULL AND (product_type IN ('non_consumable', 'non_renewing', 'auto_renewable'));

-- ---------------------------------------------------------------------------------------------
-- record_purchase, now told the product type Apple signed (StoreKit 2 `type`) and the
-- appAccountToken. Order matching: the order whose token the transaction carries (exactly);
-- else the order id; else the user's oldest pending order for the product.
-- ---------------------------------------------------------------------------------------------
DROP FUNCTION receiptq.record_purchase(bigint, text, text, text, text, text, integer, timestamptz, timestamptz, text, text, text, text);

CREATE FUNCTION receiptq.record_purchase(
    p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text,
    p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamptz, p_expires_date timestamptz,
    p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text,
    p_product_type text, p_app_account_token uuid, p_storefront text, p_price bigint, p_currency text,
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
    v_type := coalesce(v_type, p_product_type, CASE WHEN p_expires_date IS NOT NULL THEN 'auto_renewable' END);
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

    IF NOT v_family AND p_app_account_token IS NOT NULL THEN
        SELECT * INTO v_order FROM receiptq.orders WHERE app_account_token = p_app_account_token FOR UPDATE;   -- orders_app_account_token_idx
        IF FOUND AND (v_order.product_id <> p_product_id OR v_order.user_id <> p_user_id OR v_order.state <> 'pending') THEN
            v_order_mismatch := v_order.product_id <> p_product_id;
            v_order := NULL;
        END IF;
    END IF;
    IF NOT v_family AND v_order.order_id IS NULL AND p_order_id IS NOT NULL THEN
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
                                 ownership_type, web_order_line_item_id, expires_date, claimed_product_id, order_mismatch,
                                 app_account_token, storefront, price, currency)
    VALUES (p_transaction_id, p_original_transaction_id, p_job_id, p_user_id, p_product_id, p_quantity,
            p_purchase_date, p_environment, v_order.order_id, v_order.order_id IS NULL, purchase_key, v_type,
            p_ownership_type, p_web_order_line_item_id, p_expires_date,
            CASE WHEN p_claimed_product_id <> p_product_id THEN p_claimed_product_id END, v_order_mismatch,
            p_app_account_token, p_storefront, p_price, p_currency);

    IF v_order.order_id IS NOT NULL THEN
        UPDATE receiptq.orders SET state = 'fulfilled', fulfilled_at = now() WHERE order_id = v_order.order_id;
    END IF;

    result := 'granted';
    matched_order_id := v_order.order_id;
    unmatched := v_order.order_id IS NULL;
    another_user := false;
END $$;

COMMENT ON FUNCTION receiptq.record_purchase IS
    'Ledger write for one verified transaction, one row per purchase: already_granted | granted (with the matched order: by appAccountToken, order id, or the user''s oldest pending one; or unmatched).';

-- ---------------------------------------------------------------------------------------------
-- Roles (0011): the new columns to the processes that use them; the API and the scheduler still
-- never read a payload (signed_transaction, like receipt_data). record_purchase was re-created,
-- so its EXECUTE grant is given again and PUBLIC's default one taken away.
-- ---------------------------------------------------------------------------------------------
REVOKE ALL ON FUNCTION receiptq.record_purchase(bigint, text, text, text, text, text, integer, timestamptz, timestamptz,
                                                text, text, text, text, text, uuid, text, bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION receiptq.record_purchase(bigint, text, text, text, text, text, integer, timestamptz, timestamptz,
                                                   text, text, text, text, text, uuid, text, bigint, text) TO receiptq_worker;
GRANT SELECT (kind, app_account_token, signed_sha256) ON receiptq.jobs TO receiptq_api, receiptq_scheduler, receiptq_readonly;
GRANT INSERT (kind, signed_transaction, app_account_token) ON receiptq.jobs TO receiptq_api;
GRANT INSERT (app_account_token) ON receiptq.orders TO receiptq_api;
