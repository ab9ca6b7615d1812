import Postgres

/// What a job means for the app that submitted it: the one field the client acts on. The rule
/// lives in one place, the SQL function `receiptq.verdict`, because it reads the ledger as well as
/// the job: `delivered` only when this job created the submitter's own grant, so no state written
/// by any role, no replay and no resubmission can make anyone else read it.
///
/// Only `delivered` lets the app hand out goods; only `notPaid` (Apple's own "invalid", another
/// app's receipt, a refund before it reached us) and `ownedByAnotherUser` let it finish the
/// StoreKit transaction without delivering.
public enum Verdict: String, Sendable, Codable, CaseIterable {
    /// Granted now, to this user: deliver the goods, then finish the transaction (seed status 2).
    case delivered
    /// This user's purchase was granted before (a resubmission, a restore, another device; seed 1):
    /// finish the transaction, deliver nothing new.
    case alreadyDelivered = "already_delivered"
    /// The purchase belongs to another account (a replay of someone else's receipt or signed
    /// transaction, or Apple's appAccountToken names another account's order): deliver nothing.
    case ownedByAnotherUser = "owned_by_another_user"
    /// Apple refunded or revoked this user's purchase: deliver nothing (take back what was given).
    case revoked
    /// Apple says it is not a valid purchase (seed 3): finish the transaction, deliver nothing.
    case notPaid = "not_paid"
    /// The receipt does not hold the transaction yet, or a transaction id alone was sent: keep the
    /// transaction unfinished and submit again with proof (a refreshed receipt, or the signed
    /// transaction).
    case resubmit
    /// Anything else: Apple slow, down, or answering something we do not understand — keep the
    /// transaction unfinished; nothing is lost.
    case pending

    /// The SQL expression of a job's verdict, from the job's state, id and user (SQL expressions)
    /// and its ledger row `grant`, LEFT JOINed on the job's purchase key.
    static func sql(state: String, id: String, userID: String, grant g: String) -> String {
        "receiptq.verdict(\(state), \(id), \(userID), \(g).user_id, \(g).job_id, \(g).revoked_at)"
    }

    /// Decodes a verdict a statement selected.
    static func decode(_ row: PostgresRow, _ column: String = "verdict") throws -> Verdict {
        guard let verdict = Verdict(rawValue: try row.decode(column, as: String.self)) else {
            throw PostgresError(.decoding, "unknown verdict")
        }
        return verdict
    }
}
