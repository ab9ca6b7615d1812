-- receiptq.refuse_audit_change: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.
--
-- The triggers that call it live here too (CREATE OR REPLACE TRIGGER): the rule and where it
-- applies are read together.

CREATE OR REPLACE FUNCTION receiptq.refuse_audit_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION 'receiptq.support_audit is append-only: % refused', TG_OP
        USING ERRCODE = '42501', HINT = 'the audit log is never changed; add a row that says what was wrong';
END $$;

COMMENT ON FUNCTION receiptq.refuse_audit_change() IS
    'Trigger of support_audit_append_only and support_audit_no_truncate: the audit log is append-only for every role, the owner included.';

REVOKE ALL ON FUNCTION receiptq.refuse_audit_change() FROM PUBLIC;

CREATE OR REPLACE TRIGGER support_audit_append_only BEFORE UPDATE OR DELETE ON receiptq.support_audit
    FOR EACH ROW EXECUTE FUNCTION receiptq.refuse_audit_change();
CREATE OR REPLACE TRIGGER support_audit_no_truncate BEFORE TRUNCATE ON receiptq.support_audit
    FOR EACH STATEMENT EXECUTE FUNCTION receiptq.refuse_audit_change();
