-- receiptq.append_job_events: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE FUNCTION receiptq.append_job_events(p_jobs bigint[]) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_appended integer;
BEGIN
    -- Serialises appends until commit, so events.sequence follows commit order (0009).
    PERFORM pg_advisory_xact_lock(1381061969, 3);
    INSERT INTO receiptq.events (type, user_id, job_id, purchase_key, trace_parent, body)
    SELECT CASE WHEN j.state = 'failed' THEN 'job.failed' ELSE 'verdict.' || v.verdict END,
           j.user_id, j.id, j.purchase_key, j.trace_parent,
           jsonb_strip_nulls(jsonb_build_object(
               'job_id', j.id, 'status_url', '/v1/receipts/' || j.id, 'state', j.state, 'verdict', v.verdict,
               'transaction_id', j.transaction_id, 'reason', j.outcome_reason, 'environment', j.apple_environment,
               'request_id', j.request_id,
               'purchase', CASE WHEN g.purchase_key IS NOT NULL AND g.user_id = j.user_id THEN jsonb_build_object(
                   'purchase_key', g.purchase_key, 'transaction_id', g.transaction_id,
                   'original_transaction_id', g.original_transaction_id, 'product_id', g.product_id,
                   'quantity', g.quantity, 'environment', g.environment, 'ownership_type', g.ownership_type,
                   'order_id', g.order_id, 'expires_at', g.expires_date, 'revoked_at', g.revoked_at) END))
    -- One primary-key probe per id, whatever the table's size: OFFSET 0 keeps the lateral
    -- subquery from being flattened into a join that PostgreSQL's default costs answer with a
    -- sequential scan and a hash of jobs below ~150,000 rows (each batch of 1,000 read all
    -- 50,000 jobs in `bench queue`).
    FROM (SELECT DISTINCT x.id FROM unnest(p_jobs) AS x(id)) AS x
    CROSS JOIN LATERAL (SELECT * FROM receiptq.jobs j WHERE j.id = x.id AND j.finished_at IS NOT NULL OFFSET 0) AS j  -- jobs_pkey
    LEFT JOIN receiptq.grants g ON g.purchase_key = j.purchase_key                  -- grants_pkey
    CROSS JOIN LATERAL (SELECT receiptq.verdict(j.state, j.id, j.user_id, g.user_id, g.job_id, g.revoked_at) AS verdict) AS v
    ORDER BY j.id;
    GET DIAGNOSTICS v_appended = ROW_COUNT;
    RETURN v_appended;
END $$;

COMMENT ON FUNCTION receiptq.append_job_events(p_jobs bigint[]) IS 'Appends one event per finished job of p_jobs (verdict.<verdict>, or job.failed), derived from the job and its ledger row. Run last in the transaction that finished them.';

REVOKE ALL ON FUNCTION receiptq.append_job_events(p_jobs bigint[]) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.append_job_events(p_jobs bigint[]) TO receiptq_worker;
