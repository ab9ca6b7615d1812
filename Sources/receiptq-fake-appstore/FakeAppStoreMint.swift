import ArgumentParser
import CommandSupport
import FakeAppStore
import Foundation

/// `receiptq-fake-appstore mint`: prints one receipt in the fake's format (see `FakeReceipt`), or
/// StoreKit 2 style signed transactions under a new fake CA.
struct FakeAppStoreMint: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mint",
        abstract: "Print a receipt (base64) or signed transactions (JWS) for trying the API; --fake-url for ones a default API accepts.",
        discussion: """
            Which receipts a ReceiptQueue API accepts: by default (--receipt-check local) it verifies each \
            receipt's PKCS #7 signature and chain before it answers, and refuses anything else with 422 \
            (invalid-receipt). So:

            - With --fake-url http://HOST:PORT, the running fake App Store there mints the receipt as a real \
            PKCS #7 app receipt signed by its test CA (POST /fake/admin/receipts), and --root-out saves that CA's \
            root. An API and workers started with --signed-data-root <that root> --trust-test-roots (and \
            --bundle-ids with this --bundle-id) accept it, and the fake's verifyReceipt answers it. This is the mode \
            for trying the API as a backend would (docs/quickstart.md).

              receiptq-fake-appstore mint --fake-url http://127.0.0.1:8787 --transaction 1000000001:com.example.coins100 --root-out fake-root.pem

            - Without --fake-url it prints the fake's own JSON format, base64: {"bundle_id", "environment": \
            "Production"|"Sandbox", "in_app": [{"transaction_id", "original_transaction_id", "product_id", "quantity", \
            "purchase_date_ms", "expires_date_ms" (subscriptions only)}], "forced_status" (optional: the fake answers \
            this status), "padding" (optional filler)}. Only the fake reads it: an API or worker refuses it unless both \
            run with --receipt-check off (as the lab's demo and benchmarks do). A sandbox receipt sent to the \
            production endpoint gets 21007, a production one sent to the sandbox 21008.

              receiptq-fake-appstore mint --environment sandbox --transaction 1000000001:com.example.coins100

            With --signed-transaction, prints instead one StoreKit 2 style JWS transaction per flag (what \
            Transaction.jwsRepresentation holds). With --fake-url the running fake buys it (without a notification) \
            and signs it with its CA, so its App Store Server API knows the purchase too; without, a CA made for this \
            run signs it (leaf with the receipt-signing OID, intermediate with the WWDR OID, root). The root is \
            written to --root-out, or printed after the JWS with --print-root; a verifier accepts the JWS only when \
            configured to trust that root.

              receiptq-fake-appstore mint --signed-transaction 2000000000000001:com.example.coins100 --root-out /tmp/fake-root.pem
            """)

    @Option(help: "The app's bundle id.")
    var bundleID = "com.example.app"

    @Option(help: "production or sandbox.")
    var environment = "production"

    @Option(help: "A transaction TRANSACTION_ID:PRODUCT_ID[:EXPIRES_MS] (repeatable; default one random consumable).")
    var transaction: [String] = []

    @Option(help: "A running fake App Store (e.g. http://127.0.0.1:8787) that mints and signs with its CA: receipts and transactions a default API accepts.")
    var fakeURL: String?

    @Option(help: "Make the fake answer this status for the receipt (e.g. 21003; the JSON format only).")
    var forcedStatus: Int?

    @Option(help: "Pad the base64 to about this many characters (real receipts are several KB).")
    var size: Int?

    @Flag(help: "Print the decoded JSON too (to stderr).")
    var verbose = false

    @Option(help: "Print a signed transaction TRANSACTION_ID:PRODUCT_ID[:TYPE] instead of a receipt; TYPE consumable (default), non-consumable, auto-renewable or non-renewing (repeatable).")
    var signedTransaction: [String] = []

    @Option(help: "With --signed-transaction: the appAccountToken (a UUID) to sign in.")
    var appAccountToken: String?

    @Option(help: "Write the signing CA's root certificate (PEM) to this file (with --fake-url or --signed-transaction).")
    var rootOut: String?

    @Flag(help: "With --signed-transaction: print the root certificate (PEM) after the transactions.")
    var printRoot = false

    func run() async throws {
        if let fakeURL { return try await mintWithRunningFake(at: fakeURL) }
        if !signedTransaction.isEmpty { return try mintSignedTransactions() }
        let environment: FakeReceipt.Environment
        switch self.environment.lowercased() {
        case "production": environment = .production
        case "sandbox": environment = .sandbox
        default: throw ValidationError("--environment must be production or sandbox")
        }
        var receipt = FakeReceipt(bundleID: bundleID, environment: environment, inApp: try transactions(), forcedStatus: forcedStatus)
        if let size { receipt = receipt.padded(toBase64Length: size) }
        if verbose, let data = Data(base64Encoded: receipt.base64()) {
            FileHandle.standardError.write(data + Data("\n".utf8))
        }
        print(receipt.base64())
    }
}

extension FakeAppStoreMint {
    /// The --transaction flags (default: one random consumable).
    func transactions() throws -> [FakeTransaction] {
        let transactions = try transaction.map { text in
            let parts = text.split(separator: ":").map(String.init)
            guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--transaction \(text): expected TRANSACTION_ID:PRODUCT_ID[:EXPIRES_MS]")
            }
            let expires = parts.count == 3 ? Int64(parts[2]) : nil
            if parts.count == 3, expires == nil { throw ValidationError("--transaction \(text): EXPIRES_MS must be an integer") }
            return FakeTransaction(transactionID: parts[0], productID: parts[1], expiresDateMs: expires)
        }
        guard transactions.isEmpty else { return transactions }
        return [FakeTransaction(transactionID: String(Int.random(in: 1_000_000_000_000...9_999_999_999_999)), productID: "\(bundleID).consumable")]
    }

    /// The --signed-transaction flags as TRANSACTION_ID, PRODUCT_ID, TYPE?.
    func signedTransactionParts() throws -> [(id: String, product: String, type: String?)] {
        try signedTransaction.map { text in
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
                  parts.count == 2 || FakeProductType(loosely: parts[2]) != nil
            else { throw ValidationError("--signed-transaction \(text): expected TRANSACTION_ID:PRODUCT_ID[:consumable|non-consumable|auto-renewable|non-renewing]") }
            return (parts[0], parts[1], parts.count == 3 ? parts[2] : nil)
        }
    }

    /// Signs each --signed-transaction under a CA made now and prints one JWS per line.
    func mintSignedTransactions() throws {
        guard let environment = FakeEnvironment(loosely: environment) else {
            throw ValidationError("--environment must be production or sandbox")
        }
        if let appAccountToken, UUID(uuidString: appAccountToken) == nil { throw ValidationError("--app-account-token must be a UUID") }
        let fake = try FakeServerAPI(configuration: FakeServerAPIConfiguration(bundleId: bundleID))
        var lines: [String] = []
        for (id, product, type) in try signedTransactionParts() {
            let purchase: FakePurchase
            do {
                purchase = try fake.buy(FakePurchaseRequest(
                    productId: product, type: type, environment: environment.rawValue,
                    transactionId: id, appAccountToken: appAccountToken, notify: false))
            } catch let error as FakeAdminError {
                throw ValidationError("--signed-transaction \(id): \(error.message)")
            }
            lines.append(fake.signer.signTransaction(purchase))
        }
        if let rootOut {
            guard FileManager.default.createFile(atPath: rootOut, contents: Data(fake.rootCertificatePEM.utf8)) else {
                throw ValidationError("--root-out \(rootOut): cannot write the file")
            }
        }
        if printRoot { lines.append(fake.rootCertificatePEM) }
        print(lines.joined(separator: "\n"))
    }
}
