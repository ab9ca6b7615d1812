-- 0036: the support listener's Apple-backed reads spend the fleet's App Store Server API budget,
-- as every other caller does (issue 45). `receiptq support serve` and `receiptq support …` take
-- their tokens from receiptq.api_rate_budgets through the support login, which could read the
-- table (as a member of receiptq_readonly) but not take from it: order lookups, refund histories
-- and the console's order page answered 500 "permission denied for table api_rate_budgets".
-- The tests ran as the owner; they now run these reads as the support login.
GRANT INSERT (bundle_id, endpoint, environment, rate_per_second, capacity, tokens, refilled_at),
      UPDATE (rate_per_second, capacity, tokens, refilled_at, paused_until, granted_total, pauses_total)
    ON receiptq.api_rate_budgets TO receiptq_support;
