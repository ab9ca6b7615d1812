import CLibPQ

extension PostgresConnection {
    /// The SCRAM-SHA-256 verifier of `password` for `user`, computed here by libpq
    /// (`PQencryptPasswordConn`). Sent instead of the password in `CREATE ROLE … PASSWORD`, it is
    /// stored as is: the password itself never reaches the server, its statement log or
    /// `pg_stat_statements`.
    public func scramVerifier(password: String, user: String) throws -> String {
        guard let verifier = PQencryptPasswordConn(handle, password, user, "scram-sha-256") else {
            throw PostgresError(.server, "could not compute a SCRAM verifier: \(String(cString: PQerrorMessage(handle)))")
        }
        defer { PQfreemem(verifier) }
        return String(cString: verifier)
    }
}
