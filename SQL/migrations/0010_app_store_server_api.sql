-- App Store Server API rate budgets. Apple limits requests per app and per endpoint (production
-- 50/s for most endpoints, 10/s Get Refund History, 1/s test notifications; sandbox 10%), and the
-- limit is shared by every worker that calls Apple. One token bucket per (app, endpoint,
-- environment) lives here, so N workers together use the whole budget without 429s:
--
--   available = least(capacity, tokens + rate_per_second × seconds since refilled_at)
--   a taker gets least(wanted, floor(available)) and leaves available − granted
--
-- in one short statement (ReceiptQueue's TakeRateTokens), under the row lock, by primary key.
-- When Apple answers 429, the worker that saw it sets paused_until to Apple's Retry-After and
-- empties the bucket; every taker gets nothing until then, and the refill restarts from there
-- (no burst after the pause). A new bucket starts empty, so a fleet that starts together does not
-- burst either. A worker creates its buckets (rate and capacity from its configuration) on first
-- use; the row is the truth, so ops may change rate_per_second here and every worker follows.
CREATE TABLE receiptq.api_rate_budgets (
    bundle_id       text NOT NULL,
    endpoint        text NOT NULL,                  -- ServerAPIEndpoint.rawValue, e.g. get_transaction_info
    environment     text NOT NULL CHECK (environment IN ('Production', 'Sandbox')),
    rate_per_second double precision NOT NULL CHECK (rate_per_second > 0),
    capacity        double precision NOT NULL CHECK (capacity >= 1),
    tokens          double precision NOT NULL,
    refilled_at     timestamptz NOT NULL,           -- tokens were exact at this instant (may lie ahead during a pause)
    paused_until    timestamptz,                    -- Apple's Retry-After after a 429; nothing is granted before it
    granted_total   bigint NOT NULL DEFAULT 0,      -- requests granted since the row was created (ops)
    pauses_total    bigint NOT NULL DEFAULT 0,      -- 429s reported since the row was created (ops)
    PRIMARY KEY (bundle_id, endpoint, environment)
) WITH (
    -- Every take rewrites the row (hundreds a second at most); no indexed column changes, so with
    -- room on the page each update is HOT and vacuum only has to prune.
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000
);
COMMENT ON TABLE receiptq.api_rate_budgets IS
    'Token bucket per (app, App Store Server API endpoint, environment), shared by every worker; paused_until honours Apple''s Retry-After fleet-wide.';

CREATE VIEW receiptq.api_rate_budget_status AS
    SELECT bundle_id, endpoint, environment, rate_per_second, capacity,
           round(least(capacity, tokens + rate_per_second
                 * greatest(0, extract(epoch FROM clock_timestamp() - refilled_at)::float8))::numeric, 2) AS tokens_now,
           paused_until > clock_timestamp() AS paused,
           paused_until, granted_total, pauses_total
    FROM receiptq.api_rate_budgets
    ORDER BY bundle_id, endpoint, environment;
COMMENT ON VIEW receiptq.api_rate_budget_status IS
    'App Store Server API budgets now: tokens available, whether Apple paused the endpoint (429), totals granted and paused.';
