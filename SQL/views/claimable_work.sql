-- receiptq.claimable_work: this view's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.
--
-- What an autoscaler should scale the workers on (Deploy/kubernetes/scaledobject.yaml): jobs a
-- worker could claim right now, and none while Apple is failing. During an Apple outage every
-- worker's circuit breaker opens and the workers claim nothing, so the due backlog grows; scaling
-- on it (as on queue_depth) would add workers that send more requests into the outage.
--
-- The breakers live in each worker's memory (Sources/Worker/CircuitBreaker.swift) and the fleet
-- hears of an opening by NOTIFY (OutageNotice), which leaves nothing in a table. So the view reads
-- what an open breaker leaves behind instead, over the last minute: attempts that ended in a retry
-- or a timeout (the job back in `queued` or `timed_out`, with `last_error`, updated in that minute)
-- against jobs Apple answered (granted, already_granted, rejected with an Apple environment,
-- finished in that minute). Apple is taken to be failing when at least 10 attempts failed and
-- they are three quarters or more of those that ended — the breaker's own rule (three quarters of
-- its newest requests). While the breakers stay open, the probes every worker sends (one per open
-- period, at most 4 s) keep the failures coming; once Apple answers, grants outnumber them and
-- the view reads the due work again within the minute.
--
-- Cost: `due` is a range of jobs_ready_idx; a retry recorded in the last minute has run_at >=
-- its update (now() + its backoff), so the failures are a range of jobs_ready_idx and one of
-- jobs_timed_out_idx from a minute ago on (the delayed jobs, and the ones due since: one
-- subquery per state, as the partial indexes are per state), and the answers a range of
-- jobs_finished_idx: never a scan of the whole table. The CTEs are MATERIALIZED so each count
-- runs once (inlined, the planner repeated the failure counts for every column reading them).

CREATE OR REPLACE VIEW receiptq.claimable_work AS
 WITH counts AS MATERIALIZED (
         SELECT ( SELECT count(*) AS count
                   FROM receiptq.jobs
                  WHERE ((jobs.state = 'queued'::text) AND (jobs.run_at <= now()))) AS due,
            (( SELECT count(*) AS count
                   FROM receiptq.jobs
                  WHERE ((jobs.state = 'queued'::text) AND (jobs.run_at > (now() - '00:01:00'::interval)) AND (jobs.updated_at > (now() - '00:01:00'::interval)) AND (jobs.last_error IS NOT NULL))) + ( SELECT count(*) AS count
                   FROM receiptq.jobs
                  WHERE ((jobs.state = 'timed_out'::text) AND (jobs.run_at > (now() - '00:01:00'::interval)) AND (jobs.updated_at > (now() - '00:01:00'::interval)) AND (jobs.last_error IS NOT NULL)))) AS failed_last_minute,
            ( SELECT count(*) AS count
                   FROM receiptq.jobs
                  WHERE ((jobs.finished_at > (now() - '00:01:00'::interval)) AND (jobs.state = ANY (ARRAY['granted'::text, 'already_granted'::text, 'rejected'::text])) AND (jobs.apple_environment IS NOT NULL))) AS answered_last_minute
        ), verdict AS MATERIALIZED (
         SELECT counts.due,
            counts.failed_last_minute,
            counts.answered_last_minute,
            ((counts.failed_last_minute >= 10) AND ((counts.failed_last_minute * 4) >= ((counts.failed_last_minute + counts.answered_last_minute) * 3))) AS apple_failing
           FROM counts
        )
 SELECT verdict.due,
    verdict.failed_last_minute,
    verdict.answered_last_minute,
    verdict.apple_failing,
        CASE
            WHEN verdict.apple_failing THEN (0)::bigint
            ELSE verdict.due
        END AS claimable
   FROM verdict;

COMMENT ON VIEW receiptq.claimable_work IS 'What to scale workers on: claimable = jobs due now (queued, run_at <= now()), or 0 while Apple is failing (apple_failing: in the last minute at least 10 attempts ended in a retry or timeout, and they are 3/4 or more of the attempts that ended; the workers'' breakers are open then and claim nothing).';

GRANT SELECT ON TABLE receiptq.claimable_work TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.claimable_work TO receiptq_readonly;
-- A worker starting up reads apple_failing (FleetAnsweredRecently): no full-rate start into an outage.
GRANT SELECT ON TABLE receiptq.claimable_work TO receiptq_worker;
