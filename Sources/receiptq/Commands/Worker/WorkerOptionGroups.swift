import ArgumentParser
import CommandSupport
import Foundation
import Worker

/// `receiptq worker`'s own options, grouped by concern as `--help` shows them. Defaults live in
/// `WorkerConfiguration` (and the other configuration structs); help texts quote them.

/// How receipts reach Apple and what is asked.
struct WorkerAppleOptions: ParsableArguments {
    private static let defaults = WorkerConfiguration.defaults

    @Option(help: "How receipts are verified: verify-receipt; server-api (the receipt verified on this machine and found to hold the client's transaction, then that transaction through Get Transaction Info; a receipt this machine cannot confirm through verifyReceipt; needs credentials and --receipt-check local; local+server-api is its earlier name); or auto (server-api when credentials are configured and --receipt-check is local, else verify-receipt). Default: auto.")
    var receiptVerifier: WorkerCommand.ReceiptVerifier?

    @Option(help: "local: verify each receipt on this machine first and reject, without asking Apple, one that provably is not Apple's for --bundle-ids (a receipt we merely cannot confirm still goes to Apple); off: send every receipt to Apple. Default: local.")
    var receiptCheck: ReceiptCheckMode?

    @Flag(help: "Also confirm each StoreKit 2 signed transaction with Get Transaction Info (Apple's current view; costs rate budget). Default: off.")
    var confirmSignedTransactions = false

    @Option(help: "Apple production verifyReceipt URL. Default: \(defaults.apple.productionURL).")
    var appleProductionURL: String?

    @Option(help: "Apple sandbox verifyReceipt URL. Default: \(defaults.apple.sandboxURL).")
    var appleSandboxURL: String?

    @Option(help: "Time allowed for one call to Apple before the job is marked timed_out. Default: \(defaults.apple.requestTimeout.argumentText).")
    var appleTimeout: Duration?

    @Option(help: "PEM file of the CAs that verify Apple's TLS certificate: only these are trusted. Default: the system's CAs.")
    var caBundle: String?
}

/// How much one worker does at once, and its timing.
struct WorkerCapacityOptions: ParsableArguments {
    private static let defaults = WorkerConfiguration.defaults

    @Option(help: "Worker name in locked_by (unique per process). Default: host-pid.")
    var name: String?

    @Option(help: "Verifications in flight at most. Default: \(defaults.concurrency).")
    var concurrency: Int?

    @Option(help: "App Store Server API lookups in flight at most. Default: \(TransactionJobRunner.Configuration(name: "", receiptsThroughServerAPI: false, lease: .seconds(60)).serverAPIConcurrency).")
    var serverAPIConcurrency: Int?

    @Option(help: "Webhook deliveries in flight at most (0: this worker delivers none). Default: \(WebhookDelivererConfiguration(name: "").concurrency).")
    var webhookConcurrency: Int?

    @Option(help: "With App Store Server API credentials: history syncs (walks of Transaction History v2, one page at a time) in flight at most (0: this worker walks none). Default: \(HistorySyncRunner.Configuration(name: "").concurrency).")
    var historySyncConcurrency: Int?

    @Option(help: "With App Store Server API credentials: subscription status checks (Get All Subscription Statuses) in flight at most (0: this worker checks none). Default: \(StatusReconciler.Configuration(name: "").concurrency).")
    var reconcileConcurrency: Int?

    @Option(help: "The most of Get All Subscription Statuses' fleet-wide rate budget that status checks may spend, a fraction greater than 0 and at most 1 (a bucket of its own; give every worker the same). Default: \(StatusReconciler.Configuration(name: "").budgetShare).")
    var reconcileBudgetShare: Double?

    @Option(help: "How long a claimed job is this worker's (must exceed two Apple calls plus 5s). Default: \(defaults.lease.argumentText).")
    var lease: Duration?

    @Option(help: "Look at the queue this often even without a notification. Default: \(defaults.pollInterval.argumentText).")
    var pollInterval: Duration?

    @Option(help: "On SIGTERM, time for in-flight verifications (and lookups, deliveries) before the rest are released; the process exits about a second after. Default: \(defaults.shutdownDeadline.argumentText).")
    var shutdownDeadline: Duration?

    @Option(help: "After a lull, a large claim sends 20 requests first and the rest only if Apple has not failed them this long after (0s: never wait). Default: \(defaults.canaryWindow.argumentText).")
    var canaryWindow: Duration?

    @Option(help: "Ask Apple again about a verification unanswered past the recent p99, for at most this share of requests (0: never). Default: \(HedgePolicy().maxShare).")
    var hedgeShare: Double?
}

/// What a verdict needs before a purchase is granted, and what is given up.
struct WorkerPolicyOptions: ParsableArguments {
    private static let defaults = WorkerConfiguration.defaults

    @Flag(help: "Grant a new purchase only when an appAccountToken Apple signed names one of your orders (family-shared purchases exempt); one without is held in failed for review, never granted to whoever submits it. Default: off (the first submitter with proof owns a purchase without such a token).")
    var requireAppAccountToken = false

    @Flag(help: "Reject receipts verified in Apple's sandbox. Default: off (accepted and marked environment=Sandbox).")
    var rejectSandbox = false

    @Option(help: "Retry answers that may mean a bad receipt (21002) this long, then give the job up into failed (never rejected). Default: \(defaults.doubtWindow.argumentText).")
    var doubtWindow: Duration?

    @Option(help: "21004 answers (shared secret refused) for one receipt before it is given up into failed. Default: \(defaults.secretMismatchAttempts).")
    var secretMismatchAttempts: Int?

    @Option(help: "What Apple hears as your refund preference when it asks about a refund request (Send Consumption Information v2, with App Store Server API credentials): decline (refunds of purchases the ledger shows delivered; an undelivered one gets no preference), grant (a full refund), or no-preference. Default: no-preference.")
    var refundPreference: String?
}
