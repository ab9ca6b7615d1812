-- receiptq.track_delivery_heads: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.
--
-- The triggers that call it live here too (CREATE OR REPLACE TRIGGER). Migration 0039 made the
-- first version of both, with the marks they keep.
--
-- Each (endpoint, user) with pending deliveries (queued, delivering) has exactly one marked
-- `head` (deliveries_head_idx, unique): its oldest pending delivery, except that a head out with
-- a deliverer stays head until its lease ends (a re-driven older delivery waits for it rather
-- than go beside it). ClaimDeliveries takes due queued heads only (deliveries_due_idx). Every
-- statement that writes receiptq.deliveries keeps the marks through these triggers — the
-- fan-out, acknowledgements, retries, give-ups, the rescue of expired leases, re-drives, and any
-- UPDATE by hand — so none of them names the column.

CREATE OR REPLACE FUNCTION receiptq.track_delivery_heads() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_endpoints text[];
    v_users     text[];
    v_keys      bigint[];
    v_heads     text[];
    v_sequences bigint[];
BEGIN
    IF TG_LEVEL = 'ROW' THEN
        -- BEFORE UPDATE of a head that ends (delivered, failed): unmarked in the same row version.
        NEW.head := false;
        RETURN NEW;
    END IF;
    -- The (endpoint, user) groups whose pending deliveries this statement changed: rows inserted
    -- pending; rows that became pending or stopped being (delivered, failed, re-driven); a lease
    -- that ended back in the queue (its group's oldest may have to go first); a head deleted.
    -- A claim (queued -> delivering) and a head moved by this function change no group.
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(g.endpoint_id ORDER BY g.key), array_agg(g.user_id ORDER BY g.key), array_agg(g.key ORDER BY g.key)
        INTO v_endpoints, v_users, v_keys
        FROM (SELECT DISTINCT n.endpoint_id, n.user_id,
                     hashtextextended('receiptq.delivery_head:' || n.endpoint_id || '/' || n.user_id, 0) AS key
              FROM new_rows n WHERE n.state IN ('queued', 'delivering')) g;
    ELSIF TG_OP = 'UPDATE' THEN
        SELECT array_agg(g.endpoint_id ORDER BY g.key), array_agg(g.user_id ORDER BY g.key), array_agg(g.key ORDER BY g.key)
        INTO v_endpoints, v_users, v_keys
        FROM (SELECT DISTINCT x.endpoint_id, x.user_id,
                     hashtextextended('receiptq.delivery_head:' || x.endpoint_id || '/' || x.user_id, 0) AS key
              FROM old_rows o
              JOIN new_rows n ON n.endpoint_id = o.endpoint_id AND n.event_sequence = o.event_sequence
              CROSS JOIN LATERAL (VALUES (o.endpoint_id, o.user_id), (n.endpoint_id, n.user_id)) AS x(endpoint_id, user_id)
              WHERE (o.state IN ('queued', 'delivering')) <> (n.state IN ('queued', 'delivering'))
                 OR (o.state = 'delivering' AND n.state = 'queued')
                 OR o.user_id <> n.user_id) g;
    ELSE
        -- A head deleted on its own (an endpoint's deletion takes all its deliveries: nothing to do).
        SELECT array_agg(g.endpoint_id ORDER BY g.key), array_agg(g.user_id ORDER BY g.key), array_agg(g.key ORDER BY g.key)
        INTO v_endpoints, v_users, v_keys
        FROM (SELECT DISTINCT o.endpoint_id, o.user_id,
                     hashtextextended('receiptq.delivery_head:' || o.endpoint_id || '/' || o.user_id, 0) AS key
              FROM old_rows o
              WHERE o.head AND EXISTS (SELECT 1 FROM receiptq.webhook_endpoints w WHERE w.id = o.endpoint_id)) g;
    END IF;
    IF v_endpoints IS NULL THEN
        RETURN NULL;
    END IF;

    -- One writer per group at a time: a transaction-scoped lock per (endpoint, user), taken in key
    -- order and held to commit, after each endpoint's lock taken shared. A statement that changes
    -- more than 128 groups (a re-drive, a mass rescue) takes its endpoints' locks exclusive
    -- instead: one lock, not thousands (the lock table holds max_locks_per_transaction per
    -- connection). So whoever commits first, the second sees its rows: an append and the end of
    -- the head it waits behind, a re-drive and an acknowledgement, never both miss each other.
    IF cardinality(v_keys) <= 128 THEN
        PERFORM pg_advisory_xact_lock_shared(hashtextextended('receiptq.delivery_heads:' || e.endpoint_id, 0))
        FROM (SELECT DISTINCT endpoint_id FROM unnest(v_endpoints) AS e(endpoint_id) ORDER BY 1) e;
        PERFORM pg_advisory_xact_lock(k.key) FROM unnest(v_keys) WITH ORDINALITY AS k(key, n) ORDER BY k.n;
    ELSE
        PERFORM pg_advisory_xact_lock(hashtextextended('receiptq.delivery_heads:' || e.endpoint_id, 0))
        FROM (SELECT DISTINCT endpoint_id FROM unnest(v_endpoints) AS e(endpoint_id) ORDER BY 1) e;
    END IF;

    -- Under those locks (this query's snapshot sees all that committed before they were granted):
    -- each group's head and its oldest pending delivery. The head moves to the oldest unless it is
    -- out with a deliverer: a head gone, finished, or queued behind an older pending one (re-driven,
    -- or appended out of order) is unmarked. A head another transaction holds (claimed meanwhile,
    -- or being acknowledged) is skipped, never waited for: it is out, so it stays, and a holder
    -- that ends it moves the head itself once it has these locks.
    WITH g AS (
        SELECT * FROM unnest(v_endpoints, v_users) AS g(endpoint_id, user_id)
    ), s AS (
        SELECT g.endpoint_id, g.user_id, h.event_sequence AS head, h.state AS head_state, f.event_sequence AS oldest
        FROM g
        LEFT JOIN LATERAL (SELECT d.event_sequence, d.state FROM receiptq.deliveries d
                           WHERE d.endpoint_id = g.endpoint_id AND d.user_id = g.user_id AND d.head) h ON true          -- deliveries_head_idx
        LEFT JOIN LATERAL (SELECT d.event_sequence FROM receiptq.deliveries d
                           WHERE d.endpoint_id = g.endpoint_id AND d.user_id = g.user_id AND d.state IN ('queued', 'delivering')
                           ORDER BY d.event_sequence LIMIT 1) f ON true                                                   -- deliveries_pending_idx
    ), moves AS MATERIALIZED (
        SELECT * FROM s WHERE s.head IS DISTINCT FROM s.oldest AND s.head_state IS DISTINCT FROM 'delivering'
    ), displaced AS (
        SELECT d.endpoint_id, d.event_sequence
        FROM moves m JOIN receiptq.deliveries d ON d.endpoint_id = m.endpoint_id AND d.event_sequence = m.head
        WHERE d.head AND d.state <> 'delivering'
        FOR UPDATE OF d SKIP LOCKED
    ), unmarked AS (
        UPDATE receiptq.deliveries d SET head = false
        FROM displaced x
        WHERE d.endpoint_id = x.endpoint_id AND d.event_sequence = x.event_sequence
        RETURNING d.endpoint_id, d.event_sequence
    )
    SELECT array_agg(m.endpoint_id), array_agg(m.oldest) INTO v_heads, v_sequences
    FROM moves m
    WHERE m.oldest IS NOT NULL
      AND (m.head IS NULL OR EXISTS (SELECT 1 FROM unmarked u WHERE u.endpoint_id = m.endpoint_id AND u.event_sequence = m.head));

    IF v_heads IS NOT NULL THEN
        UPDATE receiptq.deliveries d SET head = true
        FROM unnest(v_heads, v_sequences) AS t(endpoint_id, event_sequence)
        WHERE d.endpoint_id = t.endpoint_id AND d.event_sequence = t.event_sequence AND NOT d.head
          AND d.state IN ('queued', 'delivering');
    END IF;
    RETURN NULL;
END $$;

COMMENT ON FUNCTION receiptq.track_delivery_heads() IS
    'Triggers of receiptq.deliveries: keep one head per (endpoint, user) with pending deliveries — the oldest pending one, unless the head is out with a deliverer — so ClaimDeliveries reads due heads from deliveries_due_idx.';

REVOKE ALL ON FUNCTION receiptq.track_delivery_heads() FROM PUBLIC;

-- A head that is acknowledged or given up is unmarked in the row it ends (no second row version);
-- a claim (queued -> delivering) does not call it.
CREATE OR REPLACE TRIGGER deliveries_head_ended
    BEFORE UPDATE OF state ON receiptq.deliveries
    FOR EACH ROW
    WHEN (OLD.head AND NEW.state NOT IN ('queued', 'delivering'))
    EXECUTE FUNCTION receiptq.track_delivery_heads();

-- Once per statement, with the rows it wrote: the groups whose pending deliveries changed get
-- their head (re)marked.
CREATE OR REPLACE TRIGGER deliveries_heads_inserted
    AFTER INSERT ON receiptq.deliveries
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT
    EXECUTE FUNCTION receiptq.track_delivery_heads();

CREATE OR REPLACE TRIGGER deliveries_heads_updated
    AFTER UPDATE ON receiptq.deliveries
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT
    EXECUTE FUNCTION receiptq.track_delivery_heads();

CREATE OR REPLACE TRIGGER deliveries_heads_deleted
    AFTER DELETE ON receiptq.deliveries
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT
    EXECUTE FUNCTION receiptq.track_delivery_heads();
