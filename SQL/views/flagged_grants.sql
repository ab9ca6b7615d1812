-- receiptq.flagged_grants: this view's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE VIEW receiptq.flagged_grants AS
 SELECT grants.transaction_id,
    grants.purchase_key,
    grants.user_id,
    grants.product_id,
    grants.claimed_product_id,
    grants.order_id,
    grants.unmatched,
    grants.order_mismatch,
    grants.ownership_type,
    grants.environment,
    grants.granted_at
   FROM receiptq.grants
  WHERE (grants.unmatched OR grants.order_mismatch OR (grants.claimed_product_id IS NOT NULL));

COMMENT ON VIEW receiptq.flagged_grants IS 'Grants whose client claims differed from what Apple verified, or that matched no order: paid, granted, to reconcile.';

GRANT SELECT ON TABLE receiptq.flagged_grants TO receiptq_readonly;
