import ArgumentParser
import CommandSupport
import FakeAppStore
import Foundation

/// `receiptq-fake-appstore mint`: prints one receipt in the fake's format (see `FakeReceipt`), or
/// StoreKit 2 style signed transactions under a new fake CA.
struct FakeAppStoreMint: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mint",
        abstract: "Print a fake receipt (base64) that the fake App Store accepts, or signed transactions (JWS).",
        discussion: """
            The format is base64 of JSON: {"bundle_id", "environment": "Production"|"Sandbox", \
            "in_app": [{"transaction_id", "original_transaction_id", "product_id", "quantity", \
            "purchase_date_ms", "expires_date_ms" (subscriptions only)}], "forced_status" (optional: \
            the fake answers this status), "padding" (optional filler)}. A sandbox receipt sent to \
            the production endpoint gets 21007, a production one sent to the sandbox 21008. \

            Example: receiptq-fake-appstore mint --environment sandbox --transaction 1000000001:com.example.coins100

            With --signed-transaction, prints instead one StoreKit 2 style JWS transaction per flag \
            (what Transaction.jwsRepresentation holds), signed by a CA made for this run: leaf with \
            the receipt-signing OID, intermediate with the WWDR OID, root. The root is written to \
            --root-out, or printed after the JWS with --print-root; a verifier accepts the JWS only \
            when configured to trust that root.

            Example: receiptq-fake-appstore mint --signed-transaction 2000000000000001:com.example.coins100 --root-out /tmp/fake-root.pem
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

    @Option(help: "Print a signed transaction TRANSACTION_ID:PRODUCT_ID[:TYPE] instead of a receipt; TYPE consumable (default), non-consumable, auto-renewable or non-renewing (repeatable).")
    var signedTransaction: [String] = []

    @Option(help: "With --signed-transaction: the appAccountToken (a UUID) to sign in.")
    var appAccountToken: String?

    @Option(help: "With --signed-transaction: write the signing CA's root certificate (PEM) to this file.")
    var rootOut: String?

    @Flag(help: "With --signed-transaction: print the root certificate (PEM) after the transactions.")
    var printRoot = false

    func run() async throws {
        if !signedTransaction.isEmpty { return try mintSignedTransactions() }
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

extension FakeAppStoreMint {
    /// Signs each --signed-transaction under a CA made now and prints one JWS per line.
    func mintSignedTransactions() throws {
        guard let environment = FakeEnvironment(loosely: environment) else {
            throw ValidationError("--environment must be production or sandbox")
        }
        if let appAccountToken, UUID(uuidString: appAccountToken) == nil { throw ValidationError("--app-account-token must be a UUID") }
        let fake = try FakeServerAPI(configuration: FakeServerAPIConfiguration(bundleId: bundleID))
        var lines: [String] = []
        for text in signedTransaction {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
                  parts.count == 2 || FakeProductType(loosely: parts[2]) != nil
            else { throw ValidationError("--signed-transaction \(text): expected TRANSACTION_ID:PRODUCT_ID[:consumable|non-consumable|auto-renewable|non-renewing]") }
            let purchase: FakePurchase
            do {
                purchase = try fake.buy(FakePurchaseRequest(
                    productId: parts[1], type: parts.count == 3 ? parts[2] : nil, environment: environment.rawValue,
                    transactionId: parts[0], appAccountToken: appAccountToken, notify: false))
            } catch let error as FakeAdminError {
                throw ValidationError("--signed-transaction \(text): \(error.message)")
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
