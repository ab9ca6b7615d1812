import Postgres

/// Creates a login for one process's role (`receiptq roles create-login`), or sets the password
/// of an existing receiptq login and makes sure it is in the group. One statement: the
/// `receiptq.create_login` function of migration 0011 quotes the names with format(%I, %L), so no
/// SQL is built from strings. The password travels as a SCRAM verifier computed by libpq: the
/// server, its logs and `pg_stat_statements` never see it. Needs a role with CREATEROLE (the
/// owner that migrates); refused for superusers, groups, and the caller itself.
public enum CreateLogin {
    static let sql = "SELECT receiptq.create_login($1, $2, $3) AS result"

    public enum Result: String, Sendable {
        case created
        /// The login existed: its password was set (when one was given) and its membership made sure.
        case updated
    }

    /// - Parameter password: nil creates a login without a password (certificate or peer
    ///   authentication).
    @discardableResult
    public static func run(login: String, password: String?, role: ProcessRole, on connection: PostgresConnection) throws -> Result {
        let verifier = try password.map { try connection.scramVerifier(password: $0, user: login) }
        let answer: String = try connection.query(sql, [login, verifier, role.groupName])[0].decode("result")
        guard let result = Result(rawValue: answer) else { throw PostgresError(.decoding, "unknown create_login result") }
        return result
    }
}
