-- receiptq.ownership_refusals: this view's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE VIEW receiptq.ownership_refusals AS
 SELECT j.id AS job_id,
    j.kind,
    j.user_id AS submitted_by,
    j.transaction_id,
    j.outcome_reason AS reason,
    g.user_id AS owner,
    j.purchase_key,
    j.finished_at
   FROM (receiptq.jobs j
     LEFT JOIN receiptq.grants g ON ((g.purchase_key = j.purchase_key)))
  WHERE ((j.state = 'owned_elsewhere'::text) AND (j.finished_at > (now() - '7 days'::interval)));

COMMENT ON VIEW receiptq.ownership_refusals IS 'Submissions of the last 7 days that lost ownership of a purchase (a replay under another account, or a token naming another account''s order).';

GRANT SELECT ON TABLE receiptq.ownership_refusals TO receiptq_readonly;
