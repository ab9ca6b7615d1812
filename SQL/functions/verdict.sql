-- receiptq.verdict: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN (p_state = 'owned_elsewhere'::text) THEN 'owned_by_another_user'::text WHEN (p_state = ANY (ARRAY['granted'::text, 'already_granted'::text])) THEN CASE WHEN (p_grant_user_id IS NULL) THEN 'pending'::text WHEN (p_grant_user_id <> p_user_id) THEN 'owned_by_another_user'::text WHEN (p_revoked_at IS NOT NULL) THEN 'revoked'::text WHEN (p_grant_job_id = p_job_id) THEN 'delivered'::text ELSE 'already_delivered'::text END WHEN (p_state = 'rejected'::text) THEN 'not_paid'::text WHEN (p_state = 'resubmit'::text) THEN 'resubmit'::text ELSE 'pending'::text END;

COMMENT ON FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) IS 'The verdict a job reads, from its state and its ledger row: delivered (this job created the submitter''s grant), already_delivered, owned_by_another_user, revoked, not_paid, resubmit, pending.';


SET default_tablespace = '';

SET default_table_access_method = heap;

REVOKE ALL ON FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) TO receiptq_api;
GRANT ALL ON FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) TO receiptq_worker;
GRANT ALL ON FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) TO receiptq_scheduler;
GRANT ALL ON FUNCTION receiptq.verdict(p_state text, p_job_id bigint, p_user_id text, p_grant_user_id text, p_grant_job_id bigint, p_revoked_at timestamp with time zone) TO receiptq_readonly;
