-- receiptq.queue_health: this view's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE VIEW receiptq.queue_health AS
 SELECT ( SELECT (now() - min(jobs.run_at))
           FROM receiptq.jobs
          WHERE ((jobs.state = 'queued'::text) AND (jobs.run_at <= now()))) AS oldest_ready_age,
    ( SELECT count(*) AS count
           FROM receiptq.jobs
          WHERE ((jobs.state = 'queued'::text) AND (jobs.run_at <= now()))) AS ready,
    ( SELECT count(*) AS count
           FROM receiptq.jobs
          WHERE (jobs.state = 'verifying'::text)) AS verifying,
    ( SELECT count(*) AS count
           FROM receiptq.jobs
          WHERE ((jobs.state = 'verifying'::text) AND (jobs.locked_until < now()))) AS expired_leases,
    ( SELECT count(*) AS count
           FROM receiptq.jobs
          WHERE ((jobs.state = 'queued'::text) AND (jobs.last_error IS NOT NULL))) AS retrying,
    o.finished_last_minute,
    o.finished_last_hour,
    o.failed_last_hour,
    o.rejected_last_hour,
    round((o.failed_last_hour / NULLIF(o.finished_last_hour, (0)::numeric)), 4) AS failure_rate_last_hour,
    pg_notification_queue_usage() AS notify_queue_usage
   FROM ( SELECT sum(outcomes.last_minute) AS finished_last_minute,
            sum(outcomes.last_hour) AS finished_last_hour,
            sum(outcomes.last_hour) FILTER (WHERE (outcomes.state = 'failed'::text)) AS failed_last_hour,
            sum(outcomes.last_hour) FILTER (WHERE (outcomes.state = 'rejected'::text)) AS rejected_last_hour
           FROM receiptq.outcomes) o;

COMMENT ON VIEW receiptq.queue_health IS 'Oldest ready job age, expired leases, jobs retrying after an error, completions in the last minute/hour, share of jobs that ended failed (gave up) in the last hour, NOTIFY queue usage (0-1).';

GRANT SELECT ON TABLE receiptq.queue_health TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.queue_health TO receiptq_readonly;
