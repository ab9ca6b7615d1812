-- App Store Server Notifications V2: refunds, revocations, renewals and subscription state reach
-- the ledger; nothing is missed.
--
-- The API verifies each notification (Apple's signature, bundle id, environment, app id) and
-- commits it here before answering 200 — deduplicated by notificationUUID, since Apple retries
-- anything it did not see answered — so a notification acknowledged is a notification kept.
-- Workers apply them as a queue of their own: per original transaction in signedDate order (a
-- notification is claimed only when no older one of the same purchase is still open), each in
-- one transaction with the ledger change and its events. A notification that arrives late
-- (found by the history recovery) never overwrites newer state: revocations and subscription
-- states remember the signedDate that set them.

CREATE TABLE receiptq.notifications (
    notification_uuid       uuid        PRIMARY KEY,
    notification_type       text        NOT NULL,
    subtype                 text,
    environment             text        NOT NULL,
    signed_date             timestamptz NOT NULL,
    original_transaction_id text,
    transaction_id          text,
    signed_payload          text        NOT NULL,
    source                  text        NOT NULL DEFAULT 'endpoint',
    state                   text        NOT NULL DEFAULT 'queued',
    attempts                integer     NOT NULL DEFAULT 0,
    run_at                  timestamptz NOT NULL DEFAULT now(),
    locked_by               text,
    locked_until            timestamptz,
    last_error              text,
    outcome                 text,
    received_at             timestamptz NOT NULL DEFAULT now(),
    applied_at              timestamptz,
    CONSTRAINT notifications_environment_check CHECK (environment IN ('Production', 'Sandbox')),
    CONSTRAINT notifications_source_check CHECK (source IN ('endpoint', 'history', 'test')),
    CONSTRAINT notifications_state_check CHECK (state IN ('queued', 'applying', 'applied', 'failed')),
    CONSTRAINT notifications_lease_check CHECK ((state = 'applying') = (locked_by IS NOT NULL AND locked_until IS NOT NULL)),
    CONSTRAINT notifications_type_check CHECK (length(notification_type) BETWEEN 1 AND 64)
) WITH (fillfactor = 80);
ALTER TABLE receiptq.notifications ALTER COLUMN signed_payload SET STORAGE EXTERNAL;
COMMENT ON TABLE receiptq.notifications IS
    'App Store Server Notifications V2 as Apple signed them, one row per notificationUUID: queued -> applying (leased) -> applied | failed (re-drivable).';
COMMENT ON COLUMN receiptq.notifications.signed_payload IS 'Apple''s signedPayload, kept for audit and re-application. Never log it.';
COMMENT ON COLUMN receiptq.notifications.source IS 'endpoint (Apple POSTed it), history (found by Get Notification History), test (receiptq notifications test).';
COMMENT ON COLUMN receiptq.notifications.outcome IS 'What applying it did, for ops: grant revoked, period enqueued for a user, no user known yet, recorded.';
-- The claim: the oldest open notification of each purchase goes first.
CREATE INDEX notifications_ready_idx ON receiptq.notifications (signed_date, notification_uuid) WHERE state = 'queued';
CREATE INDEX notifications_open_idx ON receiptq.notifications (original_transaction_id, signed_date, notification_uuid)
    WHERE state IN ('queued', 'applying');
CREATE INDEX notifications_lease_idx ON receiptq.notifications (locked_until) WHERE state = 'applying';
CREATE INDEX notifications_received_idx ON receiptq.notifications (received_at);

-- Refunds and revocations Apple told us about, whether or not the purchase was granted yet: a
-- purchase submitted after its REFUND is not paid. The row remembers the signedDate of the
-- notification that last changed it, so an older one arriving late changes nothing.
CREATE TABLE receiptq.revocations (
    transaction_id          text        PRIMARY KEY,
    original_transaction_id text,
    revoked_at              timestamptz,
    reason                  text        NOT NULL,
    revocation_reason       integer,
    notification_uuid       uuid        NOT NULL,
    signed_at               timestamptz NOT NULL,
    reinstated_at           timestamptz
);
COMMENT ON TABLE receiptq.revocations IS
    'REFUND / REVOKE per transaction (reinstated_at set by REFUND_REVERSED). Consulted before every grant: a refunded purchase is not paid.';

ALTER TABLE receiptq.grants
    ADD COLUMN revoked_by_notification uuid,
    ADD COLUMN revocation_signed_at timestamptz;
COMMENT ON COLUMN receiptq.grants.revoked_by_notification IS 'The notification that revoked (or last reinstated) this grant.';

-- Subscription state between renewals, from notifications: what the entitlements resource needs
-- beyond the periods granted (grace period, billing retry, auto-renew off).
CREATE TABLE receiptq.subscriptions (
    original_transaction_id   text        NOT NULL,
    environment               text        NOT NULL,
    user_id                   text,
    product_id                text,
    status                    integer,
    auto_renew_status         integer,
    expires_date              timestamptz,
    grace_period_expires_date timestamptz,
    last_notification_type    text        NOT NULL,
    last_subtype              text,
    signed_at                 timestamptz NOT NULL,
    updated_at                timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (original_transaction_id, environment),
    CONSTRAINT subscriptions_status_check CHECK (status IS NULL OR status BETWEEN 1 AND 5)
);
COMMENT ON TABLE receiptq.subscriptions IS
    'Latest known state of each auto-renewable subscription (status 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked), as of signed_at.';
CREATE INDEX subscriptions_user_idx ON receiptq.subscriptions (user_id) WHERE user_id IS NOT NULL;

-- CONSUMPTION_REQUEST: Apple asks about a refund request; the answer (Send Consumption
-- Information) is due within 12 hours and only with the customer's consent.
CREATE TABLE receiptq.consumption_consents (
    user_id     text        PRIMARY KEY,
    consented   boolean     NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT consumption_consents_user_check CHECK (length(user_id) BETWEEN 1 AND 256)
);
COMMENT ON TABLE receiptq.consumption_consents IS 'Whether the user consented to share consumption data with Apple (recorded by the backend through the API).';

CREATE TABLE receiptq.consumption_requests (
    notification_uuid uuid        PRIMARY KEY,
    transaction_id    text        NOT NULL,
    environment       text        NOT NULL,
    user_id           text,
    reason            text,
    deadline          timestamptz NOT NULL,
    state             text        NOT NULL DEFAULT 'queued',
    attempts          integer     NOT NULL DEFAULT 0,
    run_at            timestamptz NOT NULL DEFAULT now(),
    locked_by         text,
    locked_until      timestamptz,
    last_error        text,
    sent_at           timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT consumption_requests_state_check CHECK (state IN ('queued', 'sending', 'sent', 'no_consent', 'expired', 'failed')),
    CONSTRAINT consumption_requests_lease_check CHECK ((state = 'sending') = (locked_by IS NOT NULL AND locked_until IS NOT NULL))
);
COMMENT ON TABLE receiptq.consumption_requests IS
    'Apple''s CONSUMPTION_REQUESTs: answered with Send Consumption Information before deadline when the user consented; never after.';
CREATE INDEX consumption_requests_ready_idx ON receiptq.consumption_requests (run_at) WHERE state = 'queued';
CREATE INDEX consumption_requests_lease_idx ON receiptq.consumption_requests (locked_until) WHERE state = 'sending';

-- Gap recovery: how far Get Notification History has been read, per environment.
CREATE TABLE receiptq.notification_recovery (
    environment     text        PRIMARY KEY,
    checked_through timestamptz NOT NULL,
    last_run_at     timestamptz,
    last_error      text,
    recovered_total bigint      NOT NULL DEFAULT 0,
    CONSTRAINT notification_recovery_environment_check CHECK (environment IN ('Production', 'Sandbox'))
);
COMMENT ON TABLE receiptq.notification_recovery IS
    'Get Notification History read through checked_through (less an overlap each run); notifications found there and not here are enqueued.';

-- Ops: how notifications stand.
CREATE VIEW receiptq.notification_health AS
    SELECT e.environment,
           (SELECT max(n.received_at) FROM receiptq.notifications n WHERE n.environment = e.environment AND n.source = 'endpoint') AS last_received_at,
           (SELECT count(*) FROM receiptq.notifications n WHERE n.environment = e.environment AND n.state IN ('queued', 'applying')) AS open,
           (SELECT min(n.received_at) FROM receiptq.notifications n
             WHERE n.environment = e.environment AND n.state IN ('queued', 'applying'))                                       AS oldest_open_since,
           (SELECT count(*) FROM receiptq.notifications n WHERE n.environment = e.environment AND n.state = 'failed')           AS failed,
           (SELECT count(*) FROM receiptq.notifications n WHERE n.environment = e.environment AND n.source = 'history')         AS recovered_from_history,
           r.checked_through AS history_checked_through, r.last_run_at AS history_last_run_at, r.last_error AS history_last_error,
           (SELECT count(*) FROM receiptq.consumption_requests c
             WHERE c.environment = e.environment AND c.state IN ('queued', 'sending'))                                         AS consumption_requests_open
    FROM (VALUES ('Production'), ('Sandbox')) AS e(environment)
    LEFT JOIN receiptq.notification_recovery r ON r.environment = e.environment;
COMMENT ON VIEW receiptq.notification_health IS
    'Per environment: last notification received, open and failed ones, how many the history recovery found, how far it has read.';

-- A new notification wakes the workers at commit (one NOTIFY per statement).
CREATE FUNCTION receiptq.notify_notifications_received() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM received) THEN
        PERFORM pg_notify('receiptq_notifications', '');
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER notifications_notify_received AFTER INSERT ON receiptq.notifications
    REFERENCING NEW TABLE AS received FOR EACH STATEMENT EXECUTE FUNCTION receiptq.notify_notifications_received();

-- ---------------------------------------------------------------------------------------------
-- Roles (0011). The API stores notifications (never reads a payload back) and records consent;
-- workers apply them: revocations, the grants' revocation columns, subscriptions, consumption
-- requests, and the signed transactions of renewals queued as jobs; the scheduler rescues and
-- prunes them without reading payloads; readonly sees everything but the payloads.
-- ---------------------------------------------------------------------------------------------
GRANT SELECT (notification_uuid, notification_type, state, received_at) ON receiptq.notifications TO receiptq_api;
GRANT INSERT (notification_uuid, notification_type, subtype, environment, signed_date, original_transaction_id, transaction_id,
              signed_payload, source) ON receiptq.notifications TO receiptq_api;
GRANT SELECT, INSERT ON receiptq.consumption_consents TO receiptq_api;
GRANT UPDATE (consented, recorded_at) ON receiptq.consumption_consents TO receiptq_api;
GRANT SELECT ON receiptq.subscriptions, receiptq.revocations TO receiptq_api;

GRANT SELECT ON receiptq.notifications TO receiptq_worker;
GRANT UPDATE (state, attempts, run_at, locked_by, locked_until, last_error, outcome, applied_at) ON receiptq.notifications TO receiptq_worker;
GRANT SELECT, INSERT, UPDATE ON receiptq.revocations, receiptq.subscriptions TO receiptq_worker;
GRANT UPDATE (revoked_at, revocation_reason, revoked_by_notification, revocation_signed_at) ON receiptq.grants TO receiptq_worker;
GRANT SELECT ON receiptq.consumption_consents TO receiptq_worker;
GRANT SELECT, INSERT ON receiptq.consumption_requests TO receiptq_worker;
GRANT UPDATE (state, attempts, run_at, locked_by, locked_until, last_error, sent_at) ON receiptq.consumption_requests TO receiptq_worker;
-- A renewal's period, reported by a notification, is queued as a signed transaction for its user.
GRANT INSERT (kind, signed_transaction, transaction_id, user_id, product_id, order_id, app_account_token) ON receiptq.jobs TO receiptq_worker;

GRANT SELECT (notification_uuid, notification_type, subtype, environment, signed_date, original_transaction_id, transaction_id,
              source, state, attempts, run_at, locked_by, locked_until, last_error, outcome, received_at, applied_at)
    ON receiptq.notifications TO receiptq_scheduler, receiptq_readonly;
GRANT UPDATE (state, run_at, locked_by, locked_until, last_error, outcome) ON receiptq.notifications TO receiptq_scheduler;
GRANT DELETE ON receiptq.notifications TO receiptq_scheduler;
GRANT SELECT, DELETE ON receiptq.consumption_requests TO receiptq_scheduler;
GRANT UPDATE (state, run_at, locked_by, locked_until, last_error) ON receiptq.consumption_requests TO receiptq_scheduler;
GRANT SELECT ON receiptq.notification_health TO receiptq_scheduler, receiptq_readonly;
GRANT SELECT ON receiptq.revocations, receiptq.subscriptions, receiptq.consumption_consents, receiptq.consumption_requests,
                receiptq.notification_recovery TO receiptq_readonly;
-- Gap recovery runs in the scheduler (with App Store Server API credentials): its mark, the
-- notifications it finds, and the fleet's Server API rate budget it shares with the workers.
GRANT SELECT, INSERT, UPDATE ON receiptq.notification_recovery TO receiptq_scheduler;
GRANT INSERT (notification_uuid, notification_type, subtype, environment, signed_date, original_transaction_id, transaction_id,
              signed_payload, source) ON receiptq.notifications TO receiptq_scheduler;
GRANT SELECT ON receiptq.api_rate_budgets TO receiptq_scheduler;
GRANT INSERT (bundle_id, endpoint, environment, rate_per_second, capacity, tokens, refilled_at)
    ON receiptq.api_rate_budgets TO receiptq_scheduler;
GRANT UPDATE (rate_per_second, capacity, tokens, refilled_at, paused_until, granted_total, pauses_total)
    ON receiptq.api_rate_budgets TO receiptq_scheduler;
