-- receiptq.purchase_key: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE FUNCTION receiptq.purchase_key(p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_product_type text, p_ownership_type text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN (p_ownership_type = 'FAMILY_SHARED'::text) THEN CASE WHEN (p_product_type = 'auto_renewable'::text) THEN ((('family:period:'::text || p_original_transaction_id) || ':'::text) || COALESCE(p_web_order_line_item_id, p_transaction_id)) ELSE ('family:purchase:'::text || p_original_transaction_id) END WHEN (p_product_type = 'auto_renewable'::text) THEN ('period:'::text || COALESCE(p_web_order_line_item_id, p_transaction_id)) WHEN (p_product_type = 'consumable'::text) THEN ('purchase:'::text || p_transaction_id) ELSE ('purchase:'::text || p_original_transaction_id) END;

REVOKE ALL ON FUNCTION receiptq.purchase_key(p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_product_type text, p_ownership_type text) FROM PUBLIC;
GRANT ALL ON FUNCTION receiptq.purchase_key(p_transaction_id text, p_original_transaction_id text, p_web_order_line_item_id text, p_product_type text, p_ownership_type text) TO receiptq_worker;
