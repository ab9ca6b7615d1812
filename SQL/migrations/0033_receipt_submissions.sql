-- 0033: a receipt's dedupe key moves out of jobs into a table of its own, written once.
--
-- jobs_dedupe_idx (UNIQUE on receipt_sha256, transaction_id, user_id) sat on the queue's busiest
-- table. PostgreSQL cannot update a job in place (HOT) when its state changes — state is in the
-- partial indexes' predicates — so each claim, retry and verdict write added a new entry to every
-- index of jobs, and to a unique one with a uniqueness check that reads the earlier versions of
-- the row: three such entries per receipt for a key that never changes. Without it, `bench
-- queue` drained with 60–81 µs of PostgreSQL CPU per job instead of 77–99 (four rounds each,
-- same binary).
--
-- The key is now written once, by the enqueue, before the job: the enqueue takes the job's id
-- from the jobs sequence, inserts (key, id) here ON CONFLICT DO NOTHING, and inserts the job only
-- where the key went in, so two enqueues of the same submission still make one job (the second
-- waits on the key's unique index, then finds it). Pruning a job deletes its key in the same
-- statement (PruneFinishedJobs), so a receipt submitted again after its job was pruned makes a
-- new job, as before. This is also the "unpartitioned table of dedupe keys" that a jobs table
-- partitioned by day would need (docs/capacity.md). Signed transactions and transaction ids keep
-- their partial unique indexes on jobs.

CREATE TABLE receiptq.receipt_submissions (
    receipt_sha256 bytea  NOT NULL,
    transaction_id text   NOT NULL,
    user_id        text   NOT NULL,
    job_id         bigint NOT NULL,
    PRIMARY KEY (receipt_sha256, transaction_id, user_id)
);

COMMENT ON TABLE receiptq.receipt_submissions IS
    'One row per distinct receipt submission (receipt digest, transaction id, user): the dedupe key of kind = receipt jobs and the job it made. Written once by the enqueue, before the job; deleted with the job by pruning. Never updated.';
COMMENT ON COLUMN receiptq.receipt_submissions.job_id IS
    'The job the first such submission made (jobs.id; no foreign key: the enqueue writes the key first, and a check per row would cost the intake).';

-- Jobs that exist now keep their dedupe.
INSERT INTO receiptq.receipt_submissions (receipt_sha256, transaction_id, user_id, job_id)
SELECT receipt_sha256, transaction_id, user_id, id FROM receiptq.jobs WHERE kind = 'receipt' AND receipt_sha256 IS NOT NULL;

DROP INDEX receiptq.jobs_dedupe_idx;

-- The API enqueues (it picks the job's id from the sequence, so it writes jobs.id); the scheduler
-- prunes; ops and support read.
GRANT SELECT, INSERT ON receiptq.receipt_submissions TO receiptq_api;
GRANT USAGE ON SEQUENCE receiptq.jobs_id_seq TO receiptq_api;
GRANT INSERT (id) ON receiptq.jobs TO receiptq_api;
GRANT SELECT, DELETE ON receiptq.receipt_submissions TO receiptq_scheduler;
GRANT SELECT ON receiptq.receipt_submissions TO receiptq_readonly;
