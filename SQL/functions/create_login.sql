-- receiptq.create_login: this function's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE FUNCTION receiptq.create_login(p_login text, p_password text, p_role text) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog'
    AS $$
DECLARE
    v_existing pg_roles%ROWTYPE;
BEGIN
    IF p_role IS NULL OR p_role NOT IN ('receiptq_api', 'receiptq_worker', 'receiptq_scheduler', 'receiptq_readonly', 'receiptq_support') THEN
        RAISE EXCEPTION 'unknown receiptq role %', p_role USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_login IS NULL OR length(p_login) NOT BETWEEN 1 AND 63 THEN
        RAISE EXCEPTION 'a login name has 1 to 63 characters' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT * INTO v_existing FROM pg_roles WHERE rolname = p_login;
    IF NOT FOUND THEN
        IF p_password IS NULL THEN
            EXECUTE format('CREATE ROLE %I LOGIN IN ROLE %I', p_login, p_role);
        ELSE
            EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L IN ROLE %I', p_login, p_password, p_role);
        END IF;
        RETURN 'created';
    END IF;
    IF v_existing.rolsuper OR NOT v_existing.rolcanlogin OR p_login = session_user OR p_login = current_user THEN
        RAISE EXCEPTION 'role % exists and is not a receiptq login (superuser, group, or yourself)', p_login
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF p_password IS NOT NULL THEN
        EXECUTE format('ALTER ROLE %I WITH PASSWORD %L', p_login, p_password);
    END IF;
    IF NOT pg_has_role(p_login, p_role, 'MEMBER') THEN
        EXECUTE format('GRANT %I TO %I', p_role, p_login);
    END IF;
    RETURN 'updated';
END $$;

COMMENT ON FUNCTION receiptq.create_login(p_login text, p_password text, p_role text) IS 'Creates (or sets the password of) a login in one receiptq group role. Owner only; needs CREATEROLE.';

REVOKE ALL ON FUNCTION receiptq.create_login(p_login text, p_password text, p_role text) FROM PUBLIC;
