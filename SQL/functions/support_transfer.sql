-- receiptq.support_transfer: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

-- Moves a purchase to another app account (docs/support.md, "Transfer policy"): its owner, and
-- with it every grant of the original transaction (all periods of a subscription) and its
-- subscription rows (receiptq.move_owner, which emits grant.transferred to both accounts).
-- Refused for a family member's entitlement (Apple's, not the account's), a revoked purchase, a
-- manual grant, or the same account. Writes the audit row, in the caller's transaction.
CREATE OR REPLACE FUNCTION receiptq.support_transfer(p_actor text, p_why text, p_original_transaction_id text, p_to_user text)
    RETURNS bigint
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

COMMENT ON FUNCTION receiptq.support_transfer(text, text, text, text) IS
    'Support''s transfer of a purchase between app accounts (its owner, and so every grant of the original transaction and its subscription rows), grant.transferred events to both accounts and the audit row at once; returns the audit row''s id.';

REVOKE ALL ON FUNCTION receiptq.support_transfer(text, text, text, text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.support_transfer(text, text, text, text) TO receiptq_support;
