-- 0035: a purchase belongs to one account for its whole life (issue 42; DESIGN: Ownership).
--
-- Before this migration ownership was decided per purchase key, and an auto-renewable
-- subscription's key is per period: a receipt carries every period, so a replay naming an older
-- period under another account was granted to that account, which then held the live
-- subscription (its entitlements joined any grant of the original transaction), received its
-- renewals (notifications and history pages went to the most recent grant's user) and could
-- restore it. One paying attacker could spread one subscription over as many accounts as it had
-- periods.
--
-- Now the owner is kept per original transaction, in `receiptq.owners`, written by the ledger's
-- write with the first grant of the original transaction, and read by everything that needs to
-- know whose purchase it is: the ledger (a period of someone else's subscription is
-- `owned_elsewhere`), entitlements, notifications, history syncs, restores, consumption requests
-- and support. The database holds the rule: every grant names its original transaction's owner
-- (grants_owner_fkey), and moving the owner moves every grant with it (ON UPDATE CASCADE). Only
-- support's transfer, or an Apple-signed appAccountToken naming another account's pending order
-- (an upgrade bought from that account), moves it (`receiptq.move_owner`).
--
-- Existing databases: each original transaction's owner is the user of its first grant (every
-- grant was made with proof or by Apple's token, so the first is whom the rule chose first); grants
-- of the same original transaction held by other users move to that owner — one ledger row per
-- purchase stays one row, and the period the owner paid for stays an entitlement of the owner's
-- — with `grant.transferred` events (out to the account that loses it, in to the owner), the
-- reason in each, and an audit row per original transaction (actor `migration 0035`).
-- Manual grants (support's goodwill, keyed manual:<reference>) are owned by their user.
--
-- Workers of an earlier version write grants without an owner: the foreign key refuses them, their
-- batch rolls back and its jobs are retried by workers of this version (nothing is lost, nothing
-- is granted by the old rule). Upgrade the workers with this migration.
-- receiptq.record_purchase, the per-purchase write kept for workers of the version before the
-- set-based ledger, decides by the old rule and goes.

CREATE TABLE receiptq.owners (
    original_transaction_id text PRIMARY KEY,
    user_id                 text NOT NULL,
    environment             text NOT NULL CHECK (environment IN ('Production', 'Sandbox')),
    source                  text NOT NULL CHECK (source IN ('token', 'proof', 'claim', 'transfer', 'manual', 'migration')),
    order_id                text,
    ownership_type          text NOT NULL DEFAULT 'PURCHASED' CHECK (ownership_type IN ('PURCHASED', 'FAMILY_SHARED')),
    decided_at              timestamptz NOT NULL DEFAULT now(),
    changed_at              timestamptz NOT NULL DEFAULT now(),
    UNIQUE (original_transaction_id, user_id)
);

COMMENT ON TABLE receiptq.owners IS
    'Whose purchase each original transaction is, for its whole life (DESIGN: Ownership): every period, renewal, upgrade, restore, notification and status check follows this user. Written with the first grant; moved only by support''s transfer or an Apple-signed appAccountToken naming another account''s pending order (receiptq.move_ownership).';
COMMENT ON COLUMN receiptq.owners.source IS
    'How the owner was decided: token (an Apple-signed appAccountToken names the user''s order), proof (the first submitter with a receipt or signed transaction), claim (a transaction id from a backend trusted for claims), transfer (support, or a token naming a new order), manual (support''s manual grant), migration (0035: the user of the first grant).';
COMMENT ON COLUMN receiptq.owners.ownership_type IS
    'PURCHASED, or FAMILY_SHARED (a family member''s access): as its first grant said it. Every later purchase key of the original transaction follows it — a receipt made before iOS 14 names no ownership type, the signed transaction of the same period does: one purchase, one key.';
COMMENT ON COLUMN receiptq.owners.order_id IS
    'The order that decided it (its token, or the order the first grant fulfilled); NULL when none.';

CREATE INDEX owners_user_idx ON receiptq.owners (user_id);

-- The ledger's write decides and records owners; everything else reads them.
GRANT SELECT, INSERT ON receiptq.owners TO receiptq_worker;
GRANT SELECT ON receiptq.owners TO receiptq_api, receiptq_scheduler, receiptq_readonly;

-- ---------------------------------------------------------------------------------------------
-- Existing grants: one owner per original transaction, the user of its first grant.
-- ---------------------------------------------------------------------------------------------
INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source, order_id, ownership_type, decided_at, changed_at)
SELECT DISTINCT ON (g.original_transaction_id)
       g.original_transaction_id, g.user_id, g.environment, CASE WHEN g.manual_by IS NULL THEN 'migration' ELSE 'manual' END,
       g.order_id, g.ownership_type, g.granted_at, now()
FROM receiptq.grants g
ORDER BY g.original_transaction_id, g.granted_at, g.job_id;

-- Grants held by another account than their original transaction's owner move to the owner.
CREATE TEMPORARY TABLE owner_corrections ON COMMIT DROP AS
SELECT g.purchase_key, g.original_transaction_id, g.user_id AS from_user, o.user_id AS to_user, to_jsonb(g) AS before
FROM receiptq.grants g
JOIN receiptq.owners o ON o.original_transaction_id = g.original_transaction_id
WHERE g.manual_by IS NULL AND g.user_id <> o.user_id;

UPDATE receiptq.grants g SET user_id = c.to_user
FROM owner_corrections c WHERE g.purchase_key = c.purchase_key;

UPDATE receiptq.subscriptions s SET user_id = o.user_id, updated_at = now()
FROM receiptq.owners o
WHERE o.original_transaction_id = s.original_transaction_id AND s.user_id IS DISTINCT FROM o.user_id;

INSERT INTO receiptq.support_audit (actor, action, subject, why, before, after)
SELECT 'migration 0035', 'purchase.owner_corrected', 'original_transaction:' || c.original_transaction_id,
       'one owner per original transaction: grants held by other accounts move to the user of its first grant',
       jsonb_build_object('grants', jsonb_agg(c.before ORDER BY c.purchase_key)),
       jsonb_build_object('user_id', min(c.to_user), 'purchase_keys', jsonb_agg(c.purchase_key ORDER BY c.purchase_key))
FROM owner_corrections c
GROUP BY c.original_transaction_id;

-- What each account's backend hears: the account that held a grant it does not own loses it
-- (direction out), the owner gains it (in). Events in commit order (AppendJobEvents' lock).
SELECT pg_advisory_xact_lock(1380013393, 3);
INSERT INTO receiptq.events (type, user_id, purchase_key, body)
SELECT 'grant.transferred', e.user_id, NULL,
       jsonb_build_object('original_transaction_id', e.original_transaction_id, 'direction', e.direction,
                          'from_user_id', e.from_user, 'to_user_id', e.to_user,
                          'reason', 'migration 0035: the purchase belongs to the account that was granted it first',
                          'purchase_keys', e.keys)
FROM (
    SELECT c.original_transaction_id, c.from_user, min(c.to_user) AS to_user, jsonb_agg(c.purchase_key ORDER BY c.purchase_key) AS keys,
           u.direction, CASE u.direction WHEN 'out' THEN c.from_user ELSE min(c.to_user) END AS user_id, u.ord
    FROM owner_corrections c CROSS JOIN (VALUES ('out', 1), ('in', 2)) AS u(direction, ord)
    GROUP BY c.original_transaction_id, c.from_user, u.direction, u.ord
) AS e
ORDER BY e.original_transaction_id, e.from_user, e.ord;

-- From now on the database keeps it so.
ALTER TABLE receiptq.grants ADD CONSTRAINT grants_owner_fkey FOREIGN KEY (original_transaction_id, user_id)
    REFERENCES receiptq.owners (original_transaction_id, user_id) ON UPDATE CASCADE;
COMMENT ON CONSTRAINT grants_owner_fkey ON receiptq.grants IS
    'Every grant belongs to its original transaction''s owner; moving the owner (receiptq.move_owner) moves every grant of it.';

DROP FUNCTION IF EXISTS receiptq.record_purchase(bigint, text, text, text, text, text, integer, timestamptz, timestamptz, text, text, text, text,
                                        text, uuid, uuid, text, bigint, text, boolean, boolean);

-- support_grant gains an end date (subscriptions and non-renewing passes are entitlements until
-- then) and requires the product's type: its new definition is SQL/functions/support_grant.sql.
DROP FUNCTION IF EXISTS receiptq.support_grant(text, text, text, text, text, text);
