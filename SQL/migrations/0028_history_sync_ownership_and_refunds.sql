-- History syncs, ownership and refunds.
--
-- A history sync's user is who asked; only an operator's backfill makes that user an owner (the
-- rule is SQL/functions/guard_history_sync_owner.sql and RecordHistoryPage; said here where ops
-- read the column).
COMMENT ON COLUMN receiptq.history_syncs.user_id IS
    'Who asked: the user of a restore (POST /v1/users/{user_id}/history-syncs, only by an owner of the original transaction), or the user an operator named for a backfill (receiptq sync --user-id, owner''s login only: the one case that makes this user the owner of purchases nobody owns yet). NULL: a first sighting or a backfill of the whole ledger.';

-- A refund or revocation Apple reports in a customer's history is kept like one it notifies:
-- every later grant of that transaction consults receiptq.revocations (a refunded purchase is not
-- paid), and a reversal found later in the history reinstates only what such a row revoked.
ALTER TABLE receiptq.revocations
    ALTER COLUMN notification_uuid DROP NOT NULL,
    ADD COLUMN source text NOT NULL DEFAULT 'notification',
    ADD CONSTRAINT revocations_source_check CHECK ((source = 'notification') = (notification_uuid IS NOT NULL) AND source IN ('notification', 'history'));
COMMENT ON COLUMN receiptq.revocations.source IS
    'Where Apple said it: notification (notification_uuid names it) or history (a history sync''s page, signed_at its signing time).';

-- One walk of a customer's history imports every original transaction in it: the syncs of the
-- others, queued and never walked, end with it (covered_by names the walk's original transaction).
ALTER TABLE receiptq.history_syncs ADD COLUMN covered_by text;
COMMENT ON COLUMN receiptq.history_syncs.covered_by IS
    'Synced by the walk of another original transaction of the same customer (one history per Apple account): that one''s id; NULL when walked itself.';
GRANT UPDATE (covered_by) ON receiptq.history_syncs TO receiptq_worker;
