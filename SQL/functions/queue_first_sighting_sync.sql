-- receiptq.queue_first_sighting_sync: this function's current definition, its comment and its privileges —
-- the one place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place needs a
-- numbered migration that drops it first.
--
-- The trigger that calls it lives here too (CREATE OR REPLACE TRIGGER).

CREATE OR REPLACE FUNCTION receiptq.queue_first_sighting_sync() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- Once per original transaction and environment: a sync already queued, running or done stays.
    INSERT INTO receiptq.history_syncs (original_transaction_id, environment, reason)
    VALUES (NEW.original_transaction_id, NEW.environment, 'first_sighting')
    ON CONFLICT (original_transaction_id, environment) DO NOTHING;
    RETURN NULL;
END $$;

COMMENT ON FUNCTION receiptq.queue_first_sighting_sync() IS
    'Trigger of grants_first_sighting: the first grant of an auto-renewable original transaction queues its history sync (periods and refunds from before, or from a notification outage).';

REVOKE ALL ON FUNCTION receiptq.queue_first_sighting_sync() FROM PUBLIC;

-- Auto-renewable subscriptions only: a consumable is its own original transaction, and a sync per
-- consumable would spend Apple's budget on nothing.
CREATE OR REPLACE TRIGGER grants_first_sighting
    AFTER INSERT ON receiptq.grants
    FOR EACH ROW
    WHEN (NEW.product_type = 'auto_renewable')
    EXECUTE FUNCTION receiptq.queue_first_sighting_sync();
