-- 0029: submissions feed the subscription model (issue 26). A verified receipt's `latest_receipt_info`
-- and `pending_renewal_info` are a `receipt` fact, a verified StoreKit 2 signed transaction's period a
-- `transaction` fact, applied in the transaction that writes the job's verdict (RecordOutcomes). No
-- column changes: `last_source` names them, and they record no corrections (only status checks and
-- history syncs do, so subscription_corrections' source CHECK stays as it is). The column's comment
-- says so.

COMMENT ON COLUMN receiptq.subscriptions.last_source IS
    'What last changed it: notification:<TYPE>[:<SUBTYPE>], receipt (a submitted receipt), transaction (a submitted signed transaction), history or status_check.';
