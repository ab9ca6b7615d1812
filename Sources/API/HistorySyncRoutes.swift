import Foundation
import Hummingbird
import Postgres
import ReceiptQueue

/// POST /v1/users/{user_id}/history-syncs `{"original_transaction_id": "…", "environment": "Production"}`:
/// restore, or "sync purchases". ReceiptQueue walks the customer's Transaction History v2 (every
/// transaction of the customer who made this one) and imports it: periods, renewals and refunds of
/// purchases the ledger already places are granted once to their owner (or to the user of the order
/// an Apple-signed appAccountToken names), and subscriptions move to what Apple says. Answers 202
/// with the sync as it stands; asking again for a finished sync resumes it from Apple's revision
/// (only what changed since), and asking while it runs changes nothing. Results arrive as the usual
/// events.
///
/// Only an owner may ask: a bare original transaction id is a claim, not proof (DESIGN:
/// Ownership). A user who owns no purchase of it in the ledger is answered 403
/// `purchase-not-owned`: the app submits one of its receipts or signed transactions first (its
/// first grant queues the sync by itself). Nothing is ever granted to the asker for asking.
struct HistorySyncRoutes<Context: RequestContext> {
    let pool: PostgresPool

    func register(on group: RouterGroup<Context>) {
        group.post("users/:user_id/history-syncs") { request, context in try await queue(request, context: context) }
    }

    struct Body: Decodable {
        var originalTransactionId: String?
        var environment: String?

        enum CodingKeys: String, CodingKey {
            case originalTransactionId = "original_transaction_id", environment
        }
    }

    struct Answer: Encodable {
        var userId: String
        var originalTransactionId: String
        var environment: String
        var state: String
        var pages: Int
        var transactions: Int
        var syncedAt: Date?
        var lastError: String?
    }

    func queue(_ request: Request, context: Context) async throws -> Response {
        let userID = try FieldRules.pathIdentifier(context.parameters, "user_id")
        let body = try await JSONBody.decode(Body.self, from: request, limit: 1024)
        let original = try FieldRules.identifier(body.originalTransactionId, "original_transaction_id")
        guard original.unicodeScalars.count <= 64 else {
            throw Problem.invalid("original_transaction_id", "original_transaction_id is longer than 64 characters")
        }
        if let environment = body.environment, environment != "Production" && environment != "Sandbox" {
            throw Problem.invalid("environment", "environment must be Production or Sandbox")
        }
        let named = body.environment
        let status = try await pool.withConnection { connection -> QueueHistorySync.Status? in
            guard let environment = try QueueHistorySync.ownedEnvironment(of: original, by: userID, in: named, on: connection) else {
                return nil
            }
            return try QueueHistorySync.run(originalTransactionID: original, environment: environment, userID: userID, reason: .request,
                                            on: connection)
        }
        guard let status else {
            throw Problem(.purchaseNotOwned, "user_id owns no purchase of this original transaction\(named.map { " in \($0)" } ?? ""); "
                + "submit one of its receipts or signed transactions first (its first grant syncs the history by itself)")
        }
        return try JSONBody.response(Answer(userId: userID, originalTransactionId: status.originalTransactionID,
                                            environment: status.environment, state: status.state, pages: status.pages,
                                            transactions: status.transactions, syncedAt: status.syncedAt, lastError: status.lastError),
                                     status: .accepted)
    }
}
