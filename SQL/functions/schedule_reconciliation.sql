-- receiptq.schedule_reconciliation: this function's current definition, its comment and its privileges —
-- the one place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place needs a
-- numbered migration that drops it first.
--
-- The trigger that calls it lives here too (CREATE OR REPLACE TRIGGER).

CREATE OR REPLACE FUNCTION receiptq.schedule_reconciliation() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- "Recently changed" comes first: a new subscription, or a change a notification made, is checked
    -- against Apple's status within the hour (a notification seen is the one most likely to have a
    -- lost sibling); a status check or history sync schedules itself (ReconciliationSchedule).
    IF TG_OP = 'INSERT' THEN
        NEW.reconcile_at := least(coalesce(NEW.reconcile_at, 'infinity'::timestamptz), now() + interval '1 hour');
    ELSIF NEW.model IS DISTINCT FROM OLD.model AND NEW.last_source LIKE 'notification:%' THEN
        NEW.reconcile_at := least(coalesce(NEW.reconcile_at, 'infinity'::timestamptz), now() + interval '1 hour');
    END IF;
    RETURN NEW;
END $$;

COMMENT ON FUNCTION receiptq.schedule_reconciliation() IS
    'Trigger of subscriptions_schedule_reconciliation: a new subscription, or one a notification changed, is due for a status check within the hour.';

REVOKE ALL ON FUNCTION receiptq.schedule_reconciliation() FROM PUBLIC;

CREATE OR REPLACE TRIGGER subscriptions_schedule_reconciliation
    BEFORE INSERT OR UPDATE OF model ON receiptq.subscriptions
    FOR EACH ROW
    EXECUTE FUNCTION receiptq.schedule_reconciliation();
