-- A history sync's user is who asked; only an operator's backfill makes that user an owner.
-- (The rule is SQL/functions/guard_history_sync_owner.sql and RecordHistoryPage; this migration
-- only says so where ops read the column.)
COMMENT ON COLUMN receiptq.history_syncs.user_id IS
    'Who asked: the user of a restore (POST /v1/users/{user_id}/history-syncs, only by an owner of the original transaction), or the user an operator named for a backfill (receiptq sync --user-id, owner''s login only: the one case that makes this user the owner of purchases nobody owns yet). NULL: a first sighting or a backfill of the whole ledger.';
