-- Outcomes pushed to backends: a transactional event outbox, webhook endpoints and deliveries.
--
-- Every state change a backend cares about (a verdict, a job given up; refunds and renewals when
-- notifications land) appends one row to receiptq.events in the same transaction as the change
-- itself, so an event exists if and only if its change committed. Events are appended under a
-- transaction-scoped advisory lock taken just before the insert: the sequence is then assigned in
-- commit order, so a reader paging by sequence (GET /v1/events?after=) never skips an event that
-- commits late. Each event fans out, in the same statement, to one delivery per webhook endpoint.

CREATE TABLE receiptq.events (
    sequence     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           uuid        NOT NULL DEFAULT gen_random_uuid(),
    type         text        NOT NULL,
    user_id      text        NOT NULL,
    job_id       bigint,
    purchase_key text,
    body         jsonb       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT events_id_unique UNIQUE (id)
);
COMMENT ON TABLE receiptq.events IS
    'Append-only outbox: one row per change a backend cares about, written in the same transaction as the change. sequence follows commit order.';
COMMENT ON COLUMN receiptq.events.id IS 'Stable event id: a backend deduplicates deliveries by it.';
COMMENT ON COLUMN receiptq.events.body IS 'The JSON delivered to webhooks and served by GET /v1/events (documented in the OpenAPI document).';
CREATE INDEX events_created_idx ON receiptq.events (created_at);

-- Webhook endpoints: where events are POSTed, signed with the endpoint's secrets (two may be
-- active while one is rotated out). Managed with `receiptq webhooks`.
CREATE TABLE receiptq.webhook_endpoints (
    id          text        PRIMARY KEY,
    url         text        NOT NULL,
    secrets     text[]      NOT NULL,
    event_types text[],
    enabled     boolean     NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT webhook_endpoints_id_check CHECK (id ~ '^[A-Za-z0-9_.-]{1,64}$'),
    CONSTRAINT webhook_endpoints_secrets_check CHECK (cardinality(secrets) BETWEEN 1 AND 2)
);
COMMENT ON TABLE receiptq.webhook_endpoints IS 'Backends that receive events by HTTPS POST, signed with HMAC-SHA256. Secrets are never logged.';
COMMENT ON COLUMN receiptq.webhook_endpoints.event_types IS 'Event types (or prefixes ending in .*) this endpoint receives; NULL: all.';

-- One delivery per (endpoint, event). Per user, a delivery is only claimed when every earlier
-- delivery of that user to that endpoint is acknowledged (delivered) or given up (failed).
CREATE TABLE receiptq.deliveries (
    endpoint_id    text        NOT NULL REFERENCES receiptq.webhook_endpoints (id) ON DELETE CASCADE,
    event_sequence bigint      NOT NULL REFERENCES receiptq.events (sequence) ON DELETE CASCADE,
    user_id        text        NOT NULL,
    state          text        NOT NULL DEFAULT 'queued',
    attempts       integer     NOT NULL DEFAULT 0,
    run_at         timestamptz NOT NULL DEFAULT now(),
    locked_by      text,
    locked_until   timestamptz,
    last_status    integer,
    last_error     text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    budget_from    timestamptz NOT NULL DEFAULT now(),
    delivered_at   timestamptz,
    PRIMARY KEY (endpoint_id, event_sequence),
    CONSTRAINT deliveries_state_check CHECK (state IN ('queued', 'delivering', 'delivered', 'failed')),
    CONSTRAINT deliveries_lease_check CHECK ((state = 'delivering') = (locked_by IS NOT NULL AND locked_until IS NOT NULL))
) WITH (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_cost_delay = 0);
COMMENT ON COLUMN receiptq.deliveries.budget_from IS 'The retry deadline (3 days by default) counts from here: creation, or the last re-drive.';
COMMENT ON TABLE receiptq.deliveries IS
    'Webhook deliveries: queued -> delivering (leased) -> delivered | failed (gave up after the retry deadline; re-drivable). In order per (endpoint, user).';
-- The claim: the oldest pending delivery of each (endpoint, user) is the only one that may go.
CREATE INDEX deliveries_pending_idx ON receiptq.deliveries (endpoint_id, user_id, event_sequence)
    WHERE state IN ('queued', 'delivering');
-- Pruning events and their cascade to deliveries find an event's deliveries.
CREATE INDEX deliveries_event_idx ON receiptq.deliveries (event_sequence);
-- The scheduler: expired delivery leases.
CREATE INDEX deliveries_lease_idx ON receiptq.deliveries (locked_until) WHERE state = 'delivering';
CREATE INDEX deliveries_failed_idx ON receiptq.deliveries (endpoint_id, created_at) WHERE state = 'failed';

-- Wakes the deliverers at commit when events arrive (one NOTIFY per statement).
CREATE FUNCTION receiptq.notify_events_appended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM appended) THEN
        PERFORM pg_notify('receiptq_events', '');
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER events_notify_appended AFTER INSERT ON receiptq.events
    REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION receiptq.notify_events_appended();

-- Ops: how deliveries stand per endpoint.
CREATE VIEW receiptq.webhook_health AS
    SELECT e.id AS endpoint_id, e.url, e.enabled,
           (SELECT count(*) FROM receiptq.deliveries d WHERE d.endpoint_id = e.id AND d.state IN ('queued', 'delivering')) AS pending,
           (SELECT min(d.created_at) FROM receiptq.deliveries d
             WHERE d.endpoint_id = e.id AND d.state IN ('queued', 'delivering'))                   AS oldest_pending_since,
           (SELECT count(*) FROM receiptq.deliveries d WHERE d.endpoint_id = e.id AND d.state = 'failed') AS failed,
           (SELECT max(d.delivered_at) FROM receiptq.deliveries d
             WHERE d.endpoint_id = e.id AND d.state = 'delivered' AND d.delivered_at > now() - interval '1 hour') AS last_delivered_at
    FROM receiptq.webhook_endpoints e;
COMMENT ON VIEW receiptq.webhook_health IS 'Per webhook endpoint: deliveries pending (and since when), failed, last delivered in the last hour.';
