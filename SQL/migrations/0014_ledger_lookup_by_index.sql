-- The ledger's duplicate check, one index per lookup.
--
-- record_purchase looked for an existing grant with one statement: same purchase key OR (same
-- transaction id AND a transaction-keyed row). PL/pgSQL caches that plan per session; planned
-- while the ledger was small (a worker's first grants), the OR became a sequential scan of
-- receiptq.grants that the worker kept for its whole life: 0.93 ms per grant at 10,000 rows,
-- growing with the ledger, and 88% of the ledger write's time (bench e2e --kind signed,
-- pg_stat_statements). Two lookups, each on its own index (grants_pkey, then
-- grants_transaction_idx only when the key is new), have no plan to go wrong. Same signature and
-- results: CREATE OR REPLACE keeps the EXECUTE grant to receiptq_worker.

CREATE OR REPLACE FUNCTION receiptq.record_purchase(
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
    WHERE g.purchase_key = record_purchase.purchase_key;                                         -- grants_pkey
    IF NOT FOUND THEN
        SELECT * INTO v_existing FROM receiptq.grants g
        WHERE g.transaction_id = p_transaction_id AND g.purchase_key LIKE 'transaction:%'         -- grants_transaction_idx
        LIMIT 1;
    END IF;
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
