import ArgumentParser
import API
import CommandSupport

/// `receiptq api`'s own options, grouped by concern as `--help` shows them. Defaults live in
/// `APIConfiguration`; help texts quote them.

/// Where the API listens, and its connections.
struct ApiListenerOptions: ParsableArguments {
    private static let defaults = APIConfiguration()

    @Option(help: "Address to listen on. Default: \(defaults.host).")
    var host: String?

    @Option(help: "Port to listen on (0: any free port). Default: \(defaults.port).")
    var port: Int?

    @Option(help: "Close a connection that sends no complete request part for this long (idle keep-alive, slowloris). Default: \(defaults.idleTimeout.argumentText).")
    var idleTimeout: Duration?

    @Option(help: "Database connections (each with its own thread). Default: \(defaults.poolSize).")
    var poolSize: Int?
}

/// Who may call, and how much.
struct ApiAccessOptions: ParsableArguments {
    private static let defaults = APIConfiguration()

    @Option(help: "File of hex SHA-256 token digests (one per line, # comments).")
    var tokensFile: String?

    @Option(help: "Hex SHA-256 digests (comma-separated) of API tokens whose transaction-id submissions count as proof of who paid: only for a backend that vouches for the user itself. Each must also be an accepted token. Default: none (a bare transaction id is granted only to the owner Apple's signed appAccountToken names).")
    var trustedClaimTokens: String?

    @Option(help: "Requests per second per token (0: no limit). Default: \(Int(defaults.rateLimitPerSecond)).")
    var rateLimit: Double?

    @Option(help: "Burst allowed per token above the rate. Default: \(Int(defaults.rateLimitBurst)).")
    var rateBurst: Double?

    @Option(help: "Failed authentications per client address and minute before it gets 429 (0: no limit). Default: \(defaults.authFailuresPerMinute).")
    var authFailureLimit: Int?

    @Option(help: "Long-polls (?wait=) one token may have waiting; beyond, the state is answered at once. Default: \(defaults.maxLongPollsPerToken).")
    var maxLongPollsPerToken: Int?

    @Option(help: "Long-polls waiting at once in all. Default: \(defaults.maxLongPolls).")
    var maxLongPolls: Int?

    @Option(help: "Largest receipt_data accepted, in bytes. Default: \(defaults.maxReceiptBytes).")
    var maxReceiptBytes: Int?
}

/// What is checked and kept on submission.
struct ApiIntakeOptions: ParsableArguments {
    @Option(help: "local: verify each receipt on submission and answer 422 (never stored) to one that provably is not Apple's for your --bundle-ids; off: store every receipt unchecked. Default: local.")
    var receiptCheck: ReceiptCheckMode?

    @Flag(help: "Keep a subscription's entitlements while Apple retries billing without a grace period (Apple's guidance: do not). Default: off (a grace period always keeps them).")
    var billingRetryAccess = false

    @Flag(help: "Insert each receipt in its own statement and commit (for comparison only). Default: off.")
    var noGroupCommit = false
}
