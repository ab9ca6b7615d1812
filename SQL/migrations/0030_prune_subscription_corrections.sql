-- 0030: receiptq.subscription_corrections (0027) grew without bound: a row per status check or history
-- sync page that corrected a subscription, and nothing deleted them. The scheduler now prunes rows past
-- `--correction-retention` (default 90 days; at least 24 h, the window receiptq.reconciliation_health
-- counts), in bounded batches by subscription_corrections_time_idx, as it prunes events and
-- notifications (PruneSubscriptionCorrections). It needs to read the rows it deletes.

GRANT SELECT, DELETE ON receiptq.subscription_corrections TO receiptq_scheduler;
