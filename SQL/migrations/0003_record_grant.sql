-- receiptq.record_grant: the ledger write for one verified transaction, called by workers for a
-- whole batch in one statement, inside the transaction that also ends the jobs (fenced).
--
-- Decides, in this order:
--   1. owned_by_another_account — the original transaction is already granted to another user
--      (only when p_enforce_owner; a subscription's renewals share one original transaction);
--   2. already_granted          — this transaction_id is in the ledger (nothing is granted twice);
--   3. order_product_mismatch   — the order named by p_order_id is for another product;
--   4. granted                  — the row is inserted; the matched order (p_order_id when it is a
--      pending order of this user, else the user's oldest pending order for the product) is
--      marked fulfilled; with no order the grant is recorded unmatched (the user paid).
-- A transaction-scoped advisory lock per original transaction serialises concurrent grants of
-- one purchase across workers, so the checks above cannot race. Callers sort their batch by
-- original transaction id to take these locks in one order.
CREATE FUNCTION receiptq.record_grant(
    p_job_id bigint, p_transaction_id text, p_original_transaction_id text, p_user_id text,
    p_product_id text, p_quantity integer, p_purchase_date timestamptz, p_environment text,
    p_order_id text, p_enforce_owner boolean,
    OUT result text, OUT matched_order_id text, OUT unmatched boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_order receiptq.orders%ROWTYPE;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('receiptq.original:' || p_original_transaction_id, 0));

    IF p_enforce_owner AND EXISTS (
        SELECT 1 FROM receiptq.grants                                 -- grants_original_idx
        WHERE original_transaction_id = p_original_transaction_id AND user_id <> p_user_id) THEN
        result := 'owned_by_another_account';
        RETURN;
    END IF;

    IF EXISTS (SELECT 1 FROM receiptq.grants WHERE transaction_id = p_transaction_id) THEN   -- primary key
        result := 'already_granted';
        RETURN;
    END IF;

    IF p_order_id IS NOT NULL THEN
        SELECT * INTO v_order FROM receiptq.orders WHERE order_id = p_order_id FOR UPDATE;  -- primary key
        IF FOUND AND v_order.product_id <> p_product_id THEN
            result := 'order_product_mismatch';
            RETURN;
        END IF;
        IF FOUND AND (v_order.state <> 'pending' OR v_order.user_id <> p_user_id) THEN
            v_order := NULL;   -- spent or someone else's: fall back to the user's own pending orders
        END IF;
    END IF;

    IF v_order.order_id IS NULL THEN
        -- Apple sometimes drops applicationUsername: the user's oldest pending order for the product.
        SELECT * INTO v_order FROM receiptq.orders                      -- orders_pending_idx
        WHERE user_id = p_user_id AND product_id = p_product_id AND state = 'pending'
        ORDER BY created_at, order_id
        LIMIT 1
        FOR UPDATE SKIP LOCKED;
    END IF;

    INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id,
                                 quantity, purchase_date, environment, order_id, unmatched)
    VALUES (p_transaction_id, p_original_transaction_id, p_job_id, p_user_id, p_product_id,
            p_quantity, p_purchase_date, p_environment, v_order.order_id, v_order.order_id IS NULL);

    IF v_order.order_id IS NOT NULL THEN
        UPDATE receiptq.orders SET state = 'fulfilled', fulfilled_at = now() WHERE order_id = v_order.order_id;
    END IF;

    result := 'granted';
    matched_order_id := v_order.order_id;
    unmatched := v_order.order_id IS NULL;
END $$;

COMMENT ON FUNCTION receiptq.record_grant IS
    'Ledger write for one verified transaction: owned_by_another_account | already_granted | order_product_mismatch | granted (with the matched order, or unmatched).';
