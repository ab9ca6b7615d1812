-- Every Apple message is kept (DESIGN invariant 10): a notification Apple signed that this
-- configuration refuses — another bundle id, app id or environment, a root we were not told to
-- trust — is stored `quarantined` with the refusal as its reason and answered 200, instead of a
-- 422 that Apple never retries. It is never applied until re-driven (`receiptq notifications
-- redrive --quarantined`) once the configuration is fixed, when a worker verifies it again.

ALTER TABLE receiptq.notifications DROP CONSTRAINT notifications_state_check;
ALTER TABLE receiptq.notifications ADD CONSTRAINT notifications_state_check
    CHECK (state IN ('queued', 'applying', 'applied', 'failed', 'quarantined')) NOT VALID;
ALTER TABLE receiptq.notifications VALIDATE CONSTRAINT notifications_state_check;
COMMENT ON TABLE receiptq.notifications IS
    'App Store Server Notifications V2 as Apple signed them, one row per notificationUUID: queued -> applying (leased) -> applied | failed (re-drivable); quarantined: Apple''s, refused by this configuration (last_error says why), re-drivable once it is fixed.';
CREATE INDEX notifications_quarantined_idx ON receiptq.notifications (received_at) WHERE state = 'quarantined';

-- Ops: quarantined notifications per environment, beside the rest (columns appended).
CREATE OR REPLACE VIEW receiptq.notification_health AS
    SELECT e.environment,
           (SELECT max(n.received_at) FROM receiptq.notifications n WHERE n.environment = e.environment AND n.source = 'endpoint') AS last_received_at,
           (SELECT count(*) FROM receiptq.notifications n WHERE n.environment = e.environment AND n.state IN ('queued', 'applying')) AS open,
           (SELECT min(n.received_at) FROM receiptq.notifications n
             WHERE n.environment = e.environment AND n.state IN ('queued', 'applying'))                                       AS oldest_open_since,
           (SELECT count(*) FROM receiptq.notifications n WHERE n.environment = e.environment AND n.state = 'failed')           AS failed,
           (SELECT count(*) FROM receiptq.notifications n WHERE n.environment = e.environment AND n.source = 'history')         AS recovered_from_history,
           r.checked_through AS history_checked_through, r.last_run_at AS history_last_run_at, r.last_error AS history_last_error,
           (SELECT count(*) FROM receiptq.consumption_requests c
             WHERE c.environment = e.environment AND c.state IN ('queued', 'sending'))                                         AS consumption_requests_open,
           (SELECT count(*) FROM receiptq.notifications n
             WHERE n.environment = e.environment AND n.state = 'quarantined')                                                  AS quarantined,
           (SELECT min(n.received_at) FROM receiptq.notifications n
             WHERE n.environment = e.environment AND n.state = 'quarantined')                                                  AS oldest_quarantined_since
    FROM (VALUES ('Production'), ('Sandbox')) AS e(environment)
    LEFT JOIN receiptq.notification_recovery r ON r.environment = e.environment;

-- The API stores a quarantined notification with its state and reason; the scheduler's history
-- recovery stores notifications through the same statement (always queued).
GRANT INSERT (state, last_error) ON receiptq.notifications TO receiptq_api, receiptq_scheduler;
