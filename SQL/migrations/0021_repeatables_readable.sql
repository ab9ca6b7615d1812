-- 0021: every process's readiness compares the repeatable files (SQL/functions, SQL/views) with
-- what `receiptq migrate` last applied (receiptq.schema_repeatables, made by migrate itself before
-- the numbered migrations), as it does the numbered ones: each role may read it.
GRANT SELECT ON receiptq.schema_repeatables TO receiptq_api, receiptq_worker, receiptq_scheduler, receiptq_readonly;
