-- receiptq.live_workers: this view's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE VIEW receiptq.live_workers AS
 SELECT h.worker,
    h.host,
    h.pid,
    h.started_at,
    h.beat_at,
    h.interval_ms,
    (h.beat_at >= now() - 3 * h.interval_ms * interval '1 millisecond') AS live,
    (SELECT count(*) FROM receiptq.jobs j WHERE j.state = 'verifying' AND j.locked_by = h.worker) AS leased_jobs   -- jobs_lease_idx
   FROM receiptq.worker_heartbeats h;

COMMENT ON VIEW receiptq.live_workers IS 'Each worker that beat (worker_heartbeats): live when its last beat is within three of its intervals; leased_jobs: jobs it holds now.';

GRANT SELECT ON TABLE receiptq.live_workers TO receiptq_readonly;
