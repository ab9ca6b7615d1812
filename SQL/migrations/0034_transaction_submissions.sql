-- 0034: the dedupe keys of signed transactions and transaction ids leave jobs too, as 0033 did
-- for receipts, and for the same reason: jobs_signed_dedupe_idx and jobs_transaction_dedupe_idx
-- were unique indexes on the queue's busiest table, so every claim, retry and verdict write of
-- such a job added an entry to one of them, with a uniqueness check, for a key that never
-- changes. With all three keys in tables of their own, jobs carries no unique index but its
-- primary key, and a jobs table partitioned by day would keep every kind's dedupe across days
-- (docs/capacity.md).
--
-- The key is what the indexes held: a signed transaction's (transaction id, user, environment),
-- a transaction id's (transaction id, user); `environment` is '' for the latter, and for a
-- signed transaction stored without one (the index let those repeat; now they dedupe like the
-- rest). Written once, before the job, by the enqueue (EnqueueTransactions: the API, and the
-- worker for notifications and history syncs); deleted with the job by pruning.

CREATE TABLE receiptq.transaction_submissions (
    kind           text   NOT NULL CHECK (kind IN ('signed_transaction', 'transaction_id')),
    transaction_id text   NOT NULL,
    user_id        text   NOT NULL,
    environment    text   NOT NULL,
    job_id         bigint NOT NULL,
    PRIMARY KEY (kind, transaction_id, user_id, environment)
);

COMMENT ON TABLE receiptq.transaction_submissions IS
    'One row per distinct submission of a signed transaction (kind, transaction id, user, environment) or a transaction id (environment ''''): the dedupe key of those jobs and the job it made. Written once by the enqueue, before the job; deleted with the job by pruning. Never updated.';
COMMENT ON COLUMN receiptq.transaction_submissions.job_id IS
    'The job the first such submission made (jobs.id; no foreign key, as receipt_submissions).';

-- Jobs that exist now keep their dedupe (signed ones without an environment, which the index let
-- repeat, keep their first).
INSERT INTO receiptq.transaction_submissions (kind, transaction_id, user_id, environment, job_id)
SELECT kind, transaction_id, user_id,
       CASE WHEN kind = 'signed_transaction' THEN coalesce(apple_environment, '') ELSE '' END, id
FROM receiptq.jobs WHERE kind IN ('signed_transaction', 'transaction_id')
ORDER BY id
ON CONFLICT DO NOTHING;

DROP INDEX receiptq.jobs_signed_dedupe_idx;
DROP INDEX receiptq.jobs_transaction_dedupe_idx;

-- The API enqueues both kinds; the worker enqueues signed transactions from notifications and
-- history syncs (and so picks job ids, as the API has since 0033); the scheduler prunes.
GRANT SELECT, INSERT ON receiptq.transaction_submissions TO receiptq_api, receiptq_worker;
GRANT USAGE ON SEQUENCE receiptq.jobs_id_seq TO receiptq_worker;
GRANT INSERT (id) ON receiptq.jobs TO receiptq_worker;
GRANT SELECT, DELETE ON receiptq.transaction_submissions TO receiptq_scheduler;
GRANT SELECT ON receiptq.transaction_submissions TO receiptq_readonly;
