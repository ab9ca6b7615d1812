-- 0020: each subscription as a model (issue 26). `SubscriptionModel` keeps one snapshot per original
-- transaction and environment in `model` (JSON: the current period, the renewal, Apple's status,
-- each with the signing time it came from); the columns beside it are what ops, entitlements and
-- the API read. The catalog learns subscription groups, Apple's levels and entitlement names.

ALTER TABLE receiptq.subscriptions
    ADD COLUMN model jsonb,
    ADD COLUMN state text,
    ADD COLUMN group_id text,
    ADD COLUMN transaction_id text,
    ADD COLUMN renews_to_product_id text,
    ADD COLUMN expiration_reason text,
    ADD COLUMN offer_type text,
    ADD COLUMN offer_id text,
    ADD COLUMN price_increase text,
    ADD COLUMN revoked_at timestamptz,
    ADD COLUMN last_source text,
    ADD CONSTRAINT subscriptions_state_check
        CHECK (state IS NULL OR state IN ('active', 'billing_retry', 'grace_period', 'expired', 'revoked')),
    ALTER COLUMN last_notification_type DROP NOT NULL;

COMMENT ON COLUMN receiptq.subscriptions.model IS
    'SubscriptionModel''s snapshot (JSON); NULL for a row written before 0020, rebuilt from its columns on the next fact.';
COMMENT ON COLUMN receiptq.subscriptions.state IS
    'active, billing_retry, grace_period, expired or revoked: Apple''s status when it stated one, else implied by the dates.';
COMMENT ON COLUMN receiptq.subscriptions.product_id IS
    'The current period''s product: what the customer has access to (an upgrade changes it at once, a downgrade at renewal).';
COMMENT ON COLUMN receiptq.subscriptions.renews_to_product_id IS
    'The product it renews to; differs from product_id while a downgrade or crossgrade waits for the renewal.';
COMMENT ON COLUMN receiptq.subscriptions.expires_date IS 'When the current period ends, renewal-date extensions included.';
COMMENT ON COLUMN receiptq.subscriptions.last_source IS
    'What last changed it: notification:<TYPE>[:<SUBTYPE>], submission, history or status_check.';

CREATE INDEX subscriptions_user_state_idx ON receiptq.subscriptions (user_id, state) WHERE user_id IS NOT NULL;

ALTER TABLE receiptq.products
    ADD COLUMN subscription_group text,
    ADD COLUMN group_level integer CHECK (group_level IS NULL OR group_level >= 1),
    ADD COLUMN entitlements text[];

COMMENT ON COLUMN receiptq.products.subscription_group IS 'Apple''s subscription group identifier (auto-renewable products).';
COMMENT ON COLUMN receiptq.products.group_level IS
    'Apple''s level within the group: 1 is the highest service. Tells upgrades from downgrades and crossgrades.';
COMMENT ON COLUMN receiptq.products.entitlements IS
    'The entitlement names the product unlocks (e.g. {pro}); NULL: the product id itself.';

CREATE INDEX products_group_idx ON receiptq.products (subscription_group) WHERE subscription_group IS NOT NULL;

-- The API resolves entitlement names; the admin command (receiptq products) writes the catalog.
GRANT SELECT ON receiptq.products TO receiptq_api;
