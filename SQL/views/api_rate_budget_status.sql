-- receiptq.api_rate_budget_status: this view's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE VIEW receiptq.api_rate_budget_status AS
 SELECT api_rate_budgets.bundle_id,
    api_rate_budgets.endpoint,
    api_rate_budgets.environment,
    api_rate_budgets.rate_per_second,
    api_rate_budgets.capacity,
    round((LEAST(api_rate_budgets.capacity, (api_rate_budgets.tokens + (api_rate_budgets.rate_per_second * GREATEST((0)::double precision, (EXTRACT(epoch FROM (clock_timestamp() - api_rate_budgets.refilled_at)))::double precision)))))::numeric, 2) AS tokens_now,
    (api_rate_budgets.paused_until > clock_timestamp()) AS paused,
    api_rate_budgets.paused_until,
    api_rate_budgets.granted_total,
    api_rate_budgets.pauses_total
   FROM receiptq.api_rate_budgets
  ORDER BY api_rate_budgets.bundle_id, api_rate_budgets.endpoint, api_rate_budgets.environment;

COMMENT ON VIEW receiptq.api_rate_budget_status IS 'App Store Server API budgets now: tokens available, whether Apple paused the endpoint (429), totals granted and paused.';

GRANT SELECT ON TABLE receiptq.api_rate_budget_status TO receiptq_readonly;
