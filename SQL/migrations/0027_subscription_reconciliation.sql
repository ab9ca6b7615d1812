-- 0027: status reconciliation (issue 26). Each subscription carries when Apple's Get All Subscription
-- Statuses should next be asked about it (`reconcile_at`, due-first: `ReconciliationSchedule` sets it
-- after each check — hours apart in a grace period or billing retry, just after the period ends while
-- active, weeks apart once expired — and functions/schedule_reconciliation.sql brings it forward to an
-- hour after any change a notification made). A worker claims due subscriptions (the claim moves
-- `reconcile_at` out by a lease), applies Apple's answer as a `statusCheck` fact, and records every
-- field that disagreed with what notifications had said in `subscription_corrections` (history syncs
-- record theirs there too); views/reconciliation_health.sql sums them up for ops.

ALTER TABLE receiptq.subscriptions
    ADD COLUMN reconcile_at timestamptz,
    ADD COLUMN reconciled_at timestamptz;

COMMENT ON COLUMN receiptq.subscriptions.reconcile_at IS
    'When Get All Subscription Statuses is next asked about it (due-first; a claim moves it out by a lease).';
COMMENT ON COLUMN receiptq.subscriptions.reconciled_at IS 'When Apple''s status was last read for it.';

-- Rows from before: spread over a week, so adoption does not ask Apple about all of them at once.
UPDATE receiptq.subscriptions SET reconcile_at = now() + random() * interval '7 days' WHERE reconcile_at IS NULL;

CREATE INDEX subscriptions_reconcile_idx ON receiptq.subscriptions (reconcile_at);

CREATE TABLE receiptq.subscription_corrections (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    original_transaction_id text NOT NULL,
    environment text NOT NULL,
    source text NOT NULL CHECK (source IN ('status_check', 'history')),
    fields text[] NOT NULL CHECK (cardinality(fields) > 0),
    state_before text,
    state_after text,
    corrected_at timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE receiptq.subscription_corrections IS
    'Each time Apple''s status or history disagreed with what notifications had left in receiptq.subscriptions: the fields corrected.';

CREATE INDEX subscription_corrections_time_idx ON receiptq.subscription_corrections (corrected_at);

-- The worker reconciles (it already writes receiptq.subscriptions: claims move reconcile_at) and records
-- corrections; ops read; on demand, the owner runs receiptq reconcile.
GRANT SELECT, INSERT ON receiptq.subscription_corrections TO receiptq_worker;
GRANT SELECT ON receiptq.subscription_corrections TO receiptq_readonly;
