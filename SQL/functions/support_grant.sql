-- receiptq.support_grant: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

-- A manual grant (goodwill, a purchase Apple's records cannot show): one ledger row keyed
-- manual:<reference>, owned by its user (an owner row of its own, source manual), marked
-- manual_by, its grant.granted_manually event and its audit row, in the caller's transaction.
-- Never stands for an Apple purchase: a purchase Apple knows is granted from Apple's answer
-- (submit or re-drive it), so a manual grant can never double one. The product's type is
-- required; a subscription (auto_renewable, non_renewing) takes the end of its access
-- (p_expires_at) and is an entitlement until then; a one-time purchase takes none.
CREATE OR REPLACE FUNCTION receiptq.support_grant(p_actor text, p_why text, p_user_id text, p_product_id text, p_reference text,
                                                 p_product_type text, p_expires_at timestamptz)
    RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_key text := 'manual:' || p_reference;
    v_row receiptq.grants%ROWTYPE;
    v_data jsonb;
    v_audit bigint;
BEGIN
    IF p_reference IS NULL OR p_reference !~ '^[A-Za-z0-9._:-]{1,64}$' THEN
        RAISE EXCEPTION 'a manual grant''s reference has 1 to 64 letters, digits, . _ : -' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_user_id IS NULL OR length(p_user_id) NOT BETWEEN 1 AND 256 OR p_product_id IS NULL OR length(p_product_id) NOT BETWEEN 1 AND 200 THEN
        RAISE EXCEPTION 'a manual grant names a user (1-256 characters) and a product (1-200)' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_product_type IS NULL OR p_product_type NOT IN ('consumable', 'non_consumable', 'auto_renewable', 'non_renewing') THEN
        RAISE EXCEPTION 'a manual grant names the product''s type: consumable, non_consumable, auto_renewable or non_renewing'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_product_type IN ('auto_renewable', 'non_renewing') AND (p_expires_at IS NULL OR p_expires_at <= now()) THEN
        RAISE EXCEPTION 'a manual grant of a subscription (%) names when its access ends, in the future', p_product_type
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_product_type IN ('consumable', 'non_consumable') AND p_expires_at IS NOT NULL THEN
        RAISE EXCEPTION 'a manual grant of a % has no end: grant a subscription type for access that ends', p_product_type
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source)
    VALUES (v_key, p_user_id, 'Production', 'manual')
    ON CONFLICT (original_transaction_id) DO NOTHING;                                       -- owners_pkey
    IF NOT FOUND THEN
        RAISE EXCEPTION 'manual grant % exists: choose another reference', p_reference USING ERRCODE = 'unique_violation';
    END IF;
    INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key,
                                 product_type, expires_date, manual_by)
    VALUES (v_key, v_key, -nextval('receiptq.manual_grant_ids'), p_user_id, p_product_id, 'Production', v_key, p_product_type,
            p_expires_at, p_actor)
    RETURNING * INTO v_row;
    v_data := jsonb_build_object('purchase_key', v_row.purchase_key, 'transaction_id', v_row.transaction_id,
                                 'original_transaction_id', v_row.original_transaction_id, 'product_id', v_row.product_id,
                                 'product_type', v_row.product_type, 'quantity', v_row.quantity, 'environment', v_row.environment,
                                 'expires_date', v_row.expires_date, 'manual', true, 'reason', p_why);
    INSERT INTO receiptq.support_audit (actor, action, subject, why, before, after)
    VALUES (p_actor, 'grant.manual', 'user:' || p_user_id, p_why, NULL, to_jsonb(v_row))
    RETURNING id INTO v_audit;
    PERFORM pg_advisory_xact_lock(1381061969, 3);   -- AppendJobEvents.lockKey: events in commit order
    INSERT INTO receiptq.events (type, user_id, purchase_key, body) VALUES ('grant.granted_manually', p_user_id, v_key, v_data);
    RETURN v_audit;
END $$;

COMMENT ON FUNCTION receiptq.support_grant(text, text, text, text, text, text, timestamptz) IS
    'Support''s manual grant: owner row, ledger row (manual_by; a subscription''s with the end of its access), grant.granted_manually event and audit row at once; returns the audit row''s id.';

REVOKE ALL ON FUNCTION receiptq.support_grant(text, text, text, text, text, text, timestamptz) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.support_grant(text, text, text, text, text, text, timestamptz) TO receiptq_support;
