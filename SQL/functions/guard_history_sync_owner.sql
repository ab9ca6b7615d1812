-- receiptq.guard_history_sync_owner: this function's current definition, its comment and its
-- privileges — the one place to change it. `receiptq migrate` re-applies this file whenever it
-- changes (after every numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make
-- in place needs a numbered migration that drops it first.
--
-- The trigger that calls it lives here too (CREATE OR REPLACE TRIGGER).

CREATE OR REPLACE FUNCTION receiptq.guard_history_sync_owner() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- The schema's owner (an operator running `receiptq sync --user-id`) may vouch.
    IF pg_catalog.pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'history sync %: only the schema''s owner names the owner of a backfill', NEW.original_transaction_id
        USING ERRCODE = '42501', HINT = 'receiptq sync --user-id runs with the owner''s login (as migrate does); a restore asks with reason request';
END $$;

COMMENT ON FUNCTION receiptq.guard_history_sync_owner() IS
    'Trigger of history_syncs_guard_owner: a backfill naming a user (reason backfill, user_id set) makes that user the owner of the purchases in the history nobody owns yet, so only the schema''s owner may write one. Without it the API''s login, which queues restores, could vouch for a bare original transaction id (DESIGN: Ownership).';

REVOKE ALL ON FUNCTION receiptq.guard_history_sync_owner() FROM PUBLIC;

-- Fires only for a row that vouches: restores (reason request) and first sightings never call it.
CREATE OR REPLACE TRIGGER history_syncs_guard_owner
    BEFORE INSERT OR UPDATE OF user_id, reason ON receiptq.history_syncs
    FOR EACH ROW
    WHEN (NEW.reason = 'backfill' AND NEW.user_id IS NOT NULL)
    EXECUTE FUNCTION receiptq.guard_history_sync_owner();
