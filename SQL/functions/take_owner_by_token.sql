-- receiptq.take_owner_by_token: this function's current definition, its comment and its privileges —
-- the one place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

-- The ledger's write (the worker's login) moves an original transaction only this way: Apple
-- signed an appAccountToken naming a pending order of another account into one of its
-- transactions — an upgrade or a new purchase made from that account — and that account
-- submitted it (LedgerDecision). The order must be pending: a spent order's token (the one every
-- renewal repeats) never moves a purchase, so support's transfer is never undone by a renewal.
-- Returns the account it moved from.
CREATE OR REPLACE FUNCTION receiptq.take_owner_by_token(p_original_transaction_id text, p_order_id text)
    RETURNS text
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

COMMENT ON FUNCTION receiptq.take_owner_by_token(text, text) IS
    'The worker''s one way to move a purchase: an Apple-signed appAccountToken names a pending order of another account. Returns the previous owner.';

REVOKE ALL ON FUNCTION receiptq.take_owner_by_token(text, text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.take_owner_by_token(text, text) TO receiptq_worker;
