-- receiptq.fan_out_events: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE FUNCTION receiptq.fan_out_events() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    INSERT INTO receiptq.deliveries (endpoint_id, event_sequence, user_id)
    SELECT w.id, a.sequence, a.user_id
    FROM appended a
    JOIN receiptq.webhook_endpoints w ON w.enabled
         AND (w.event_types IS NULL OR a.type = ANY(w.event_types) OR split_part(a.type, '.', 1) || '.*' = ANY(w.event_types))
    ORDER BY a.sequence;
    IF EXISTS (SELECT 1 FROM appended) THEN
        PERFORM pg_notify('receiptq_events', '');
    END IF;
    RETURN NULL;
END $$;

REVOKE ALL ON FUNCTION receiptq.fan_out_events() FROM PUBLIC;
