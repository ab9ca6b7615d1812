-- receiptq.record_purchase: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.
--
-- No worker of this version calls it: the ledger's write is set-based now (RecordPurchases, decided
-- by LedgerDecision, issue 30). It stays installed for one release, so that workers of the previous
-- version finish their batches during a rolling upgrade, and as the reference LedgerAgreementTests
-- checks the set-based write against. A later numbered migration drops it.

CREATE OR REPLACE FUNCTION receiptq.record_purchase(p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamp with time zone, p_expires_date timestamp with time zone, p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text, p_product_type text, p_app_account_token uuid, p_claimed_app_account_token uuid, p_storefront text, p_price bigint, p_currency text, p_proven boolean, p_require_token boolean, OUT result text, OUT purchase_key text, OUT matched_order_id text, OUT unmatched boolean, OUT reason text) RETURNS record
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

COMMENT ON FUNCTION receiptq.record_purchase(p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamp with time zone, p_expires_date timestamp with time zone, p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text, p_product_type text, p_app_account_token uuid, p_claimed_app_account_token uuid, p_storefront text, p_price bigint, p_currency text, p_proven boolean, p_require_token boolean, OUT result text, OUT purchase_key text, OUT matched_order_id text, OUT unmatched boolean, OUT reason text) IS 'Ledger write for one verified transaction, one row per purchase, with its owner: granted | already_granted | owned_elsewhere | unproven (a bare claim) | token_required (policy).';

REVOKE ALL ON FUNCTION receiptq.record_purchase(p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamp with time zone, p_expires_date timestamp with time zone, p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text, p_product_type text, p_app_account_token uuid, p_claimed_app_account_token uuid, p_storefront text, p_price bigint, p_currency text, p_proven boolean, p_require_token boolean, OUT result text, OUT purchase_key text, OUT matched_order_id text, OUT unmatched boolean, OUT reason text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.record_purchase(p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_user_id text, p_product_id text, p_quantity integer, p_purchase_date timestamp with time zone, p_expires_date timestamp with time zone, p_environment text, p_ownership_type text, p_order_id text, p_claimed_product_id text, p_product_type text, p_app_account_token uuid, p_claimed_app_account_token uuid, p_storefront text, p_price bigint, p_currency text, p_proven boolean, p_require_token boolean, OUT result text, OUT purchase_key text, OUT matched_order_id text, OUT unmatched boolean, OUT reason text) TO receiptq_worker;
