-- receiptq.support_revoke: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

-- A manual revocation: the grant stays (never deleted), revoked_at set with the operator's
-- reason, a grant.revoked event (manual: true) and the audit row, in the caller's transaction.
CREATE OR REPLACE FUNCTION receiptq.support_revoke(p_actor text, p_why text, p_purchase_key text)
    RETURNS bigint
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

COMMENT ON FUNCTION receiptq.support_revoke(text, text, text) IS
    'Support''s manual revocation: revoked_at and reason, grant.revoked event (manual) and audit row at once; returns the audit row''s id.';

REVOKE ALL ON FUNCTION receiptq.support_revoke(text, text, text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.support_revoke(text, text, text) TO receiptq_support;
