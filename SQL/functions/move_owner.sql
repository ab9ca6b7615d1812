-- receiptq.move_owner: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

-- Moves an original transaction to another account, for its whole life: the owner row, and with
-- it every grant (grants_owner_fkey ON UPDATE CASCADE) and the subscription rows; then
-- grant.transferred to both accounts (direction out / in). The one home of a move: support's
-- transfer and a token naming another account's pending order both come here. No login may call
-- it: only the SECURITY DEFINER functions that decide a move (support_transfer,
-- take_owner_by_token). Returns the account it moved from; NULL when the owner is that account
-- already.
CREATE OR REPLACE FUNCTION receiptq.move_owner(p_original_transaction_id text, p_to_user text, p_source text, p_order_id text,
                                              p_reason text)
    RETURNS text
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

COMMENT ON FUNCTION receiptq.move_owner(text, text, text, text, text) IS
    'Moves an original transaction''s owner (and so every grant of it, and its subscription rows) to another account, with grant.transferred to both; the one home of a move, called only by support_transfer and take_owner_by_token. Returns the previous owner, NULL when unchanged.';

REVOKE ALL ON FUNCTION receiptq.move_owner(text, text, text, text, text) FROM PUBLIC;
