-- receiptq.failures: this view's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE VIEW receiptq.failures AS
 SELECT f.state,
    f.apple_status,
    f.reason,
    count(*) AS jobs,
    max(f.seen) AS last_seen
   FROM ( SELECT jobs.state,
            jobs.apple_status,
            COALESCE(jobs.outcome_reason, jobs.last_error) AS reason,
            jobs.finished_at AS seen
           FROM receiptq.jobs
          WHERE ((jobs.state = ANY (ARRAY['rejected'::text, 'failed'::text])) AND (jobs.finished_at > (now() - '24:00:00'::interval)))
        UNION ALL
         SELECT jobs.state,
            jobs.apple_status,
            jobs.last_error,
            jobs.updated_at
           FROM receiptq.jobs
          WHERE ((jobs.state = 'queued'::text) AND (jobs.last_error IS NOT NULL))
        UNION ALL
         SELECT jobs.state,
            jobs.apple_status,
            jobs.last_error,
            jobs.updated_at
           FROM receiptq.jobs
          WHERE (jobs.state = 'timed_out'::text)) f
  GROUP BY f.state, f.apple_status, f.reason
  ORDER BY (count(*)) DESC;

COMMENT ON VIEW receiptq.failures IS 'Rejected and failed jobs of the last 24 hours, and jobs waiting to retry, grouped by state, Apple status and reason.';

GRANT SELECT ON TABLE receiptq.failures TO receiptq_readonly;
