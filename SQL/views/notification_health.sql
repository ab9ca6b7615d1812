-- receiptq.notification_health: this view's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE VIEW receiptq.notification_health AS
 SELECT e.environment,
    ( SELECT max(n.received_at) AS max
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.source = 'endpoint'::text))) AS last_received_at,
    ( SELECT count(*) AS count
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.state = ANY (ARRAY['queued'::text, 'applying'::text])))) AS open,
    ( SELECT min(n.received_at) AS min
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.state = ANY (ARRAY['queued'::text, 'applying'::text])))) AS oldest_open_since,
    ( SELECT count(*) AS count
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.state = 'failed'::text))) AS failed,
    ( SELECT count(*) AS count
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.source = 'history'::text))) AS recovered_from_history,
    r.checked_through AS history_checked_through,
    r.last_run_at AS history_last_run_at,
    r.last_error AS history_last_error,
    ( SELECT count(*) AS count
           FROM receiptq.consumption_requests c
          WHERE ((c.environment = e.environment) AND (c.state = ANY (ARRAY['queued'::text, 'sending'::text])))) AS consumption_requests_open,
    ( SELECT count(*) AS count
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.state = 'quarantined'::text))) AS quarantined,
    ( SELECT min(n.received_at) AS min
           FROM receiptq.notifications n
          WHERE ((n.environment = e.environment) AND (n.state = 'quarantined'::text))) AS oldest_quarantined_since
   FROM (( VALUES ('Production'::text), ('Sandbox'::text)) e(environment)
     LEFT JOIN receiptq.notification_recovery r ON ((r.environment = e.environment)));

COMMENT ON VIEW receiptq.notification_health IS 'Per environment: last notification received, open and failed ones, how many the history recovery found, how far it has read.';

GRANT SELECT ON TABLE receiptq.notification_health TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.notification_health TO receiptq_readonly;
