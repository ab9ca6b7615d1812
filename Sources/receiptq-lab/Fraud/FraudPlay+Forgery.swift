import Postgres

/// The forger's tools for role abuse: statements run as another process's login, each outcome
/// recorded as `refused <SQLSTATE>` or `ran`.
extension FraudPlay {
    /// What neither login may do: write the ledger, call its functions (the worker's one way to
    /// move a purchase included), append events.
    func commonForgeries(_ login: PostgresPool, _ forger: String, _ mallory: String, _ targets: RoleTargets) async {
        let made = "forged-\(round)-\(forger.prefix(3))"
        await forge(login, forger, "a grant inserted for the attacker",
                    "INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key) VALUES ($1, $1, $2, $3, $4, 'Production', 'purchase:' || $1)",
                    [made, targets.payerJob, mallory, FraudStore.consumable])
        await forge(login, forger, "the payer's purchase moved to the attacker's order (receiptq.take_owner_by_token)",
                    "SELECT receiptq.take_owner_by_token((SELECT original_transaction_id FROM receiptq.grants WHERE job_id = $1 LIMIT 1), $2)",
                    [targets.payerJob, targets.payerOrder])
        await forge(login, forger, "a verdict.delivered event for the attacker",
                    "INSERT INTO receiptq.events (type, user_id, body) VALUES ('verdict.delivered', $1, '{}')", [mallory])
        await forge(login, forger, "verdict events derived for a payer's job",
                    "SELECT receiptq.append_job_events(ARRAY[$1]::bigint[])", [targets.payerJob])
    }

    /// Runs `sql` as `login` and records the outcome: `refused <SQLSTATE>`, or `ran` (with the
    /// value of `column` when given: `ran: <value> appended`).
    @discardableResult
    func forge(_ login: PostgresPool, _ forger: String, _ move: String, _ sql: String, _ parameters: [(any PostgresEncodable)?],
                       allowed: [String] = Self.refusals, column: String? = nil) async -> String {
        let outcome: String
        do {
            let rows = try await login.query(sql, parameters)
            outcome = column.flatMap { rows.first?[$0] }.map { "ran: \($0) appended" } ?? "ran"
        } catch let error as PostgresError {
            outcome = "refused \(error.sqlState ?? "without a SQLSTATE")"
        } catch {
            outcome = "failed: \(type(of: error))"
        }
        tally.record(.init(round: round, attack: label, actor: .attacker, user: forger, move: move, outcome: outcome, allowed: allowed))
        return outcome
    }

    /// Inserts a job as the API does (kind, signed transaction, transaction id, user, environment,
    /// trusted claim); its id when the login could.
    func forgeJob(_ login: PostgresPool, _ forger: String, _ move: String, _ values: [(any PostgresEncodable)?]) async -> Int64? {
        do {
            let row = try await login.query("""
                INSERT INTO receiptq.jobs (kind, signed_transaction, transaction_id, user_id, apple_environment, trusted_claim)
                VALUES ($1, $2, $3, $4, $5, $6) RETURNING id
                """, values).first
            tally.record(.init(round: round, attack: label, actor: .attacker, user: forger, move: move, outcome: "ran", allowed: ["ran"]))
            return try row?.decode("id", as: Int64.self)
        } catch {
            let state = (error as? PostgresError)?.sqlState ?? "\(type(of: error))"
            tally.record(.init(round: round, attack: label, actor: .attacker, user: forger, move: move, outcome: "refused \(state)",
                               allowed: ["ran"] + Self.refusals))
            return nil
        }
    }
}
