import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// `receiptq sync …`: history syncs for adoption and repair. Queues the walks; the workers (with
/// App Store Server API credentials) carry them out under the fleet's rate budget, each resuming
/// from Apple's revision, so the command can be stopped and run again at any time.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Queue Transaction History v2 syncs: one original transaction, or every subscription in the ledger (backfill).",
        discussion: """
            Examples:
              receiptq sync --all                       every auto-renewable original transaction not synced yet
              receiptq sync --original-transaction-id 2000000000123 --environment Production --user-id player42
              receiptq sync --status                    syncs by state, pages and transactions imported
            Workers with App Store Server API credentials walk the histories, one page per request of the
            fleet's rate budget; a sync already done resumes from its revision (only what changed since).
            """)

    @OptionGroup var database: DatabaseOptions
    @Flag(help: "Queue every auto-renewable original transaction in the ledger that has no sync yet (resumable).") var all = false
    @Option(help: "Queue (or resume) the sync of this original transaction.") var originalTransactionId: String?
    @Option(help: "Production or Sandbox. Default: every environment with --all, Production otherwise.") var environment: String?
    @Option(help: "Vouch that this user owns the purchases in the history that no order or grant of the ledger places (adopting purchases made before ReceiptQueue). Needs the schema owner's login. Default: only the ledger's owners.")
    var userId: String?
    @Flag(help: "Print the syncs by state and exit.") var status = false

    func validate() throws {
        let modes = [all, originalTransactionId != nil, status].filter { $0 }.count
        guard modes == 1 else { throw ValidationError("give exactly one of --all, --original-transaction-id or --status") }
        if let environment, environment != "Production" && environment != "Sandbox" {
            throw ValidationError("--environment must be Production or Sandbox")
        }
        if let id = originalTransactionId, id.isEmpty || id.unicodeScalars.count > 64 {
            throw ValidationError("--original-transaction-id must be 1-64 characters")
        }
        if let userId, userId.isEmpty || userId.unicodeScalars.count > 256 {
            throw ValidationError("--user-id must be 1-256 characters")
        }
        if userId != nil && originalTransactionId == nil {
            throw ValidationError("--user-id goes with --original-transaction-id")
        }
    }

    static let statusSQL = """
        SELECT state, count(*) AS syncs, coalesce(sum(pages), 0) AS pages, coalesce(sum(transactions), 0) AS transactions
        FROM receiptq.history_syncs GROUP BY state ORDER BY state
        """

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.sync", defaultLevel: .error)
        let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-sync"), size: 1)
        defer { pool.shutdown() }
        let (environment, userId) = (self.environment, self.userId)
        if all {
            let queued = try await pool.withConnection { try QueueHistorySync.backfill(environment: environment, on: $0) }
            print("queued \(queued) history sync\(queued == 1 ? "" : "s") (subscriptions already queued or synced are left as they are)")
        } else if let original = originalTransactionId {
            let sync = try await pool.withConnection {
                try QueueHistorySync.run(originalTransactionID: original, environment: environment ?? "Production", userID: userId,
                                         reason: .backfill, on: $0)
            }
            print("history sync \(sync.originalTransactionID) (\(sync.environment)): \(sync.state), \(sync.pages) pages, "
                + "\(sync.transactions) transactions so far" + (sync.lastError.map { "; last error: \($0)" } ?? ""))
        } else {
            let rows = try await pool.withConnection { try $0.query(Self.statusSQL) }
            print("state    syncs  pages  transactions")
            for row in rows {
                let state: String = try row.decode("state")
                print(state.padding(toLength: 8, withPad: " ", startingAt: 0), try row.decode("syncs", as: Int64.self),
                      try row.decode("pages", as: Int64.self), try row.decode("transactions", as: Int64.self))
            }
            if rows.isEmpty { print("(no history syncs)") }
        }
    }
}
