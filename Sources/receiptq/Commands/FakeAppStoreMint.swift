import ArgumentParser
import CommandSupport
import FakeAppStore
import Foundation

/// `receiptq fake-appstore mint`: prints one receipt in the fake's format (see `FakeReceipt`).
struct FakeAppStoreMint: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mint",
        abstract: "Print a fake receipt (base64) that the fake App Store accepts.",
        discussion: """
            The format is base64 of JSON: {"bundle_id", "environment": "Production"|"Sandbox", \
            "in_app": [{"transaction_id", "original_transaction_id", "product_id", "quantity", \
            "purchase_date_ms", "expires_date_ms" (subscriptions only)}], "forced_status" (optional: \
            the fake answers this status), "padding" (optional filler)}. A sandbox receipt sent to \
            the production endpoint gets 21007, a production one sent to the sandbox 21008. \

            Example: receiptq fake-appstore mint --environment sandbox --transaction 1000000001:com.example.coins100
            """)

    @Option(help: "The app's bundle id.")
    var bundleID = "com.example.app"

    @Option(help: "production or sandbox.")
    var environment = "production"

    @Option(help: "A transaction TRANSACTION_ID:PRODUCT_ID[:EXPIRES_MS] (repeatable; default one random consumable).")
    var transaction: [String] = []

    @Option(help: "Make the fake answer this status for the receipt (e.g. 21003).")
    var forcedStatus: Int?

    @Option(help: "Pad the base64 to about this many characters (real receipts are several KB).")
    var size: Int?

    @Flag(help: "Print the decoded JSON too (to stderr).")
    var verbose = false

    func run() async throws {
        let environment: FakeReceipt.Environment
        switch self.environment.lowercased() {
        case "production": environment = .production
        case "sandbox": environment = .sandbox
        default: throw ValidationError("--environment must be production or sandbox")
        }
        var transactions = try transaction.map { text in
            let parts = text.split(separator: ":").map(String.init)
            guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--transaction \(text): expected TRANSACTION_ID:PRODUCT_ID[:EXPIRES_MS]")
            }
            let expires = parts.count == 3 ? Int64(parts[2]) : nil
            if parts.count == 3, expires == nil { throw ValidationError("--transaction \(text): EXPIRES_MS must be an integer") }
            return FakeTransaction(transactionID: parts[0], productID: parts[1], expiresDateMs: expires)
        }
        if transactions.isEmpty {
            transactions = [FakeTransaction(transactionID: String(Int.random(in: 1_000_000_000_000...9_999_999_999_999)), productID: "\(bundleID).consumable")]
        }
        var receipt = FakeReceipt(bundleID: bundleID, environment: environment, inApp: transactions, forcedStatus: forcedStatus)
        if let size { receipt = receipt.padded(toBase64Length: size) }
        if verbose, let data = Data(base64Encoded: receipt.base64()) {
            FileHandle.standardError.write(data + Data("\n".utf8))
        }
        print(receipt.base64())
    }
}
