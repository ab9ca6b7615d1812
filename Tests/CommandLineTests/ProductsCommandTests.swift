import Foundation
import Postgres
import PostgresTesting
import ReceiptQueueTesting
import Testing

/// `receiptq products`: the operator's catalog from the command line — set, list, remove — with
/// a message naming the flag for an entry the ledger could not use.
@Suite("receiptq products: the catalog of types, groups, levels and entitlement names")
struct ProductsCommandTests {
    @Test func setListAndRemoveAProductAndRefuseWhatTheLedgerCouldNotUse() async throws {
        let database = try await ScratchDatabase.migrated()
        let url = database.connectionString
        let set = try await ChildProcess.run(arguments: ["products", "set", "--database-url", url, "--product-id", "com.example.pro",
                                                         "--type", "auto_renewable", "--group", "g1", "--level", "1",
                                                         "--entitlements", "pro,sync"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("com.example.pro: auto_renewable, group g1 level 1, entitlements pro,sync"))
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let stored = try await pool.query(
            "SELECT subscription_group, group_level, array_to_string(entitlements, ',') AS names FROM receiptq.products")
        #expect(try stored.first?.decode("names", as: String.self) == "pro,sync")
        #expect(try stored.first?.decode("group_level", as: Int.self) == 1)

        let list = try await ChildProcess.run(arguments: ["products", "list", "--database-url", url])
        #expect(list.status == 0 && list.stdout.contains("com.example.pro") && list.stdout.contains("pro,sync"), "\(list.stdout)")

        for (arguments, flag) in [(["--type", "gift"], "--type"), (["--type", "consumable", "--group", "g1"], "--group"),
                                  (["--type", "auto_renewable", "--group", "g1", "--level", "0"], "--level"),
                                  (["--type", "auto_renewable", "--entitlements", "a b"], "--entitlements")] {
            let refused = try await ChildProcess.run(arguments: ["products", "set", "--database-url", url, "--product-id", "p"] + arguments)
            #expect(refused.status == 78 && refused.stderr.contains(flag), "\(arguments): \(refused.status) \(refused.stderr)")
        }

        let removed = try await ChildProcess.run(arguments: ["products", "remove", "--database-url", url, "--product-id", "com.example.pro"])
        #expect(removed.status == 0 && removed.stdout.contains("removed com.example.pro"))
        let again = try await ChildProcess.run(arguments: ["products", "remove", "--database-url", url, "--product-id", "com.example.pro"])
        #expect(again.stdout.contains("no product com.example.pro"))
    }
}
