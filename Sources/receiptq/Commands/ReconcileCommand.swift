import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// `receiptq reconcile …`: a status check on demand. Makes the named subscriptions due now; the
/// next worker with App Store Server API credentials reads Get All Subscription Statuses for them
/// and corrects what notifications left wrong (`receiptq.reconciliation_health` counts it).
struct ReconcileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reconcile",
        abstract: "Check subscriptions against Apple's status now (Get All Subscription Statuses), one or all of a user's.",
        discussion: """
            Examples:
              receiptq reconcile --original-transaction-id 2000000000123
              receiptq reconcile --user-id player42
            Without this, workers check each subscription on the due-first schedule (docs/subscriptions.md).
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The subscription's original transaction id.") var originalTransactionId: String?
    @Option(help: "Every subscription of this user.") var userId: String?

    func validate() throws {
        guard (originalTransactionId == nil) != (userId == nil) else {
            throw ValidationError("give one of --original-transaction-id or --user-id")
        }
        if let id = originalTransactionId, id.isEmpty || id.unicodeScalars.count > 64 {
            throw ValidationError("--original-transaction-id must be 1-64 characters")
        }
        if let userId, userId.isEmpty || userId.unicodeScalars.count > 256 {
            throw ValidationError("--user-id must be 1-256 characters")
        }
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.reconcile", defaultLevel: .error)
        let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-reconcile"), size: 1)
        defer { pool.shutdown() }
        let (original, user) = (originalTransactionId, userId)
        let due = try await pool.withConnection { try ClaimDueSubscriptions.dueNow(originalTransactionID: original, userID: user, on: $0) }
        print(due == 0 ? "no such subscription" : "\(due) subscription\(due == 1 ? "" : "s") due for a status check now")
        if due == 0 { throw ExitCode(1) }
    }
}
