-- 0032: the foreign key from a job to its ledger row (0015) checked every grant's verdict write
-- with one query of receiptq.grants per row, planned once per worker session and kept: a worker
-- that first wrote while the ledger held a handful of rows kept a plan that read the whole ledger
-- for each check (~2 ms a row, 1 s for a batch of 500) until an autoanalyze of grants happened
-- to replan it. On a young database one `bench e2e` run in three drained at half its rate, every
-- verdict write waiting in that check (auto_explain: "Trigger for constraint
-- jobs_purchase_key_fkey: time=1018 ms calls=500"). With a good plan it still cost ~13 µs and a
-- row lock on the ledger row per grant.
--
-- What it guarded stays guarded. The worker writes a job's purchase_key from the ledger row the
-- same transaction inserted or locked (RecordOutcomes), and what a job means is read from the
-- ledger, never from the key alone: receiptq.verdict joins grants, and a key with no ledger row
-- delivers nothing. Grants are never deleted and their keys never change. A partitioned jobs
-- table could not have kept it NOT VALID anyway (docs/capacity.md).

ALTER TABLE receiptq.jobs DROP CONSTRAINT jobs_purchase_key_fkey;
