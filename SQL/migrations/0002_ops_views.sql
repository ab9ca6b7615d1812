-- Views for operators. Each reads only partial indexes or a bounded index range, so they stay
-- cheap when receiptq.jobs holds millions of finished rows. Column names are a contract with
-- ops dashboards and autoscalers (e.g. a KEDA postgresql trigger on queue_depth): keep them.

-- Work not yet done, per live state. Terminal jobs are not "depth": see receiptq.outcomes.
CREATE VIEW receiptq.queue_depth AS
    SELECT 'queued'::text AS state,
           count(*) AS jobs,
           count(*) FILTER (WHERE run_at <= now()) AS ready,
           count(*) FILTER (WHERE run_at > now()) AS delayed
    FROM receiptq.jobs WHERE state = 'queued'                       -- jobs_ready_idx
    UNION ALL
    SELECT 'verifying', count(*),
           count(*) FILTER (WHERE locked_until >= now()),            -- lease still valid
           count(*) FILTER (WHERE locked_until < now())              -- lease expired: scheduler requeues
    FROM receiptq.jobs WHERE state = 'verifying'                    -- jobs_lease_idx
    UNION ALL
    SELECT 'timed_out', count(*),
           count(*) FILTER (WHERE run_at <= now()),
           count(*) FILTER (WHERE run_at > now())
    FROM receiptq.jobs WHERE state = 'timed_out';                   -- jobs_timed_out_idx
COMMENT ON VIEW receiptq.queue_depth IS
    'Jobs not yet finished, per state. ready/delayed: due now vs later (for verifying: lease valid vs expired).';

-- Terminal outcomes in the last minute and hour.
CREATE VIEW receiptq.outcomes AS
    SELECT s.state,
           count(j.finished_at) FILTER (WHERE j.finished_at > now() - interval '1 minute') AS last_minute,
           count(j.finished_at) AS last_hour
    FROM (VALUES ('granted'), ('already_granted'), ('rejected'), ('failed')) AS s(state)
    LEFT JOIN receiptq.jobs j                                        -- jobs_finished_idx range
           ON j.state = s.state
          AND j.finished_at > now() - interval '1 hour'
          AND j.state IN ('granted', 'already_granted', 'rejected', 'failed')
    GROUP BY s.state;
COMMENT ON VIEW receiptq.outcomes IS 'Jobs that reached each terminal state in the last minute and the last hour.';

-- One row: is the queue healthy?
CREATE VIEW receiptq.queue_health AS
    SELECT
        (SELECT now() - min(run_at) FROM receiptq.jobs
          WHERE state = 'queued' AND run_at <= now())                AS oldest_ready_age,   -- jobs_ready_idx, first entry
        (SELECT count(*) FROM receiptq.jobs
          WHERE state = 'queued' AND run_at <= now())                AS ready,
        (SELECT count(*) FROM receiptq.jobs WHERE state = 'verifying') AS verifying,
        (SELECT count(*) FROM receiptq.jobs
          WHERE state = 'verifying' AND locked_until < now())        AS expired_leases,     -- jobs_lease_idx
        (SELECT count(*) FROM receiptq.jobs
          WHERE state = 'queued' AND last_error IS NOT NULL)         AS retrying,
        o.finished_last_minute,
        o.finished_last_hour,
        o.failed_last_hour,
        o.rejected_last_hour,
        round(o.failed_last_hour::numeric / nullif(o.finished_last_hour, 0), 4) AS failure_rate_last_hour
    FROM (SELECT sum(last_minute) AS finished_last_minute,
                 sum(last_hour) AS finished_last_hour,
                 sum(last_hour) FILTER (WHERE state = 'failed') AS failed_last_hour,
                 sum(last_hour) FILTER (WHERE state = 'rejected') AS rejected_last_hour
          FROM receiptq.outcomes) AS o;
COMMENT ON VIEW receiptq.queue_health IS
    'Oldest ready job age, expired leases, jobs retrying after an error, completions in the last minute/hour, share of jobs that ended failed (gave up) in the last hour.';

-- Why jobs are not being granted: recent rejections and failures, and errors of jobs still retrying.
CREATE VIEW receiptq.failures AS
    SELECT state, apple_status, reason, count(*) AS jobs, max(seen) AS last_seen
    FROM (
        SELECT state, apple_status, coalesce(outcome_reason, last_error) AS reason, finished_at AS seen
        FROM receiptq.jobs
        WHERE state IN ('rejected', 'failed') AND finished_at > now() - interval '24 hours'   -- jobs_finished_idx
        UNION ALL
        SELECT state, apple_status, last_error, updated_at
        FROM receiptq.jobs
        WHERE state IN ('queued', 'timed_out') AND last_error IS NOT NULL                  -- jobs_ready_idx, jobs_timed_out_idx
    ) AS f
    GROUP BY state, apple_status, reason
    ORDER BY jobs DESC;
COMMENT ON VIEW receiptq.failures IS
    'Rejected and failed jobs of the last 24 hours, and jobs waiting to retry, grouped by state, Apple status and reason.';
