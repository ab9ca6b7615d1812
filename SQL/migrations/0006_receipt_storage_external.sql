-- Receipts are base64 of signed DER (certificates, signatures): LZ compression finds almost
-- nothing to save, and pglz gives up only after reading the whole value. On every insert of a
-- 6 KiB receipt that failed attempt was the largest single cost inside PostgreSQL (7 % of the
-- machine's CPU under `receiptq bench api`; the stored size was unchanged). EXTERNAL keeps the
-- value out of line, as before (so claims and completions still copy only a TOAST pointer),
-- without trying to compress it. Existing rows are left as they are; this changes new rows only.
ALTER TABLE receiptq.jobs ALTER COLUMN receipt_data SET STORAGE EXTERNAL;
