-- receiptq.queue_depth: this view's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE VIEW receiptq.queue_depth AS
 SELECT 'queued'::text AS state,
    count(*) AS jobs,
    count(*) FILTER (WHERE (jobs.run_at <= now())) AS ready,
    count(*) FILTER (WHERE (jobs.run_at > now())) AS delayed
   FROM receiptq.jobs
  WHERE (jobs.state = 'queued'::text)
UNION ALL
 SELECT 'verifying'::text AS state,
    count(*) AS jobs,
    count(*) FILTER (WHERE (jobs.locked_until >= now())) AS ready,
    count(*) FILTER (WHERE (jobs.locked_until < now())) AS delayed
   FROM receiptq.jobs
  WHERE (jobs.state = 'verifying'::text)
UNION ALL
 SELECT 'timed_out'::text AS state,
    count(*) AS jobs,
    count(*) FILTER (WHERE (jobs.run_at <= now())) AS ready,
    count(*) FILTER (WHERE (jobs.run_at > now())) AS delayed
   FROM receiptq.jobs
  WHERE (jobs.state = 'timed_out'::text);

COMMENT ON VIEW receiptq.queue_depth IS 'Jobs not yet finished, per state. ready/delayed: due now vs later (for verifying: lease valid vs expired).';

GRANT SELECT ON TABLE receiptq.queue_depth TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.queue_depth TO receiptq_readonly;
