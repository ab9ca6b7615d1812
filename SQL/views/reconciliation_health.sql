-- receiptq.reconciliation_health: this view's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE VIEW receiptq.reconciliation_health AS
 SELECT e.environment,
    ( SELECT count(*) AS count
           FROM receiptq.subscriptions s
          WHERE s.environment = e.environment) AS subscriptions,
    ( SELECT count(*) AS count
           FROM receiptq.subscriptions s
          WHERE s.environment = e.environment AND s.reconcile_at <= now()) AS due,
    ( SELECT count(*) AS count
           FROM receiptq.subscriptions s
          WHERE s.environment = e.environment AND s.reconcile_at <= now() - interval '1 hour') AS overdue_1h,
    ( SELECT max(s.reconciled_at) AS max
           FROM receiptq.subscriptions s
          WHERE s.environment = e.environment) AS last_reconciled_at,
    ( SELECT count(*) AS count
           FROM receiptq.subscriptions s
          WHERE s.environment = e.environment AND s.reconciled_at > now() - interval '24 hours') AS reconciled_24h,
    ( SELECT count(*) AS count
           FROM receiptq.subscription_corrections c
          WHERE c.environment = e.environment AND c.source = 'status_check' AND c.corrected_at > now() - interval '24 hours') AS corrected_by_status_24h,
    ( SELECT count(*) AS count
           FROM receiptq.subscription_corrections c
          WHERE c.environment = e.environment AND c.source = 'history' AND c.corrected_at > now() - interval '24 hours') AS corrected_by_history_24h,
    ( SELECT count(*) AS count
           FROM receiptq.history_syncs h
          WHERE h.environment = e.environment AND h.state IN ('queued', 'syncing')) AS history_syncs_open,
    ( SELECT count(*) AS count
           FROM receiptq.history_syncs h
          WHERE h.environment = e.environment AND h.state = 'failed') AS history_syncs_failed
   FROM ( VALUES ('Production'::text), ('Sandbox'::text)) e(environment);

COMMENT ON VIEW receiptq.reconciliation_health IS
    'Per environment: subscriptions due and overdue for a status check, checks in the last 24 h, fields corrected by status checks and history syncs in the last 24 h (disagreements with notifications), history syncs open and failed.';

GRANT SELECT ON receiptq.reconciliation_health TO receiptq_readonly;
