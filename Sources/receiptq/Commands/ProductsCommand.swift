import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// `receiptq products …`: the operator's catalog — product types, subscription groups with Apple's
/// levels (which tell an upgrade from a downgrade), and the entitlement names each product unlocks.
struct ProductsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "products",
        abstract: "Manage the product catalog: types, subscription groups and levels, entitlement names.",
        subcommands: [SetProduct.self, List.self, Remove.self])

    struct SetProduct: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Add a product to the catalog, or replace its entry.",
            discussion: """
                Example: receiptq products set --product-id com.example.pro.monthly --type auto_renewable \\
                           --group 21000000 --level 1 --entitlements pro,sync
                Entitlements resolve at once (GET /v1/users/{id}/entitlements reads the catalog); levels apply to
                the next subscription fact.
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The App Store product id.") var productId: String
        @Option(help: "consumable, non_consumable, auto_renewable or non_renewing.") var type: String
        @Option(help: "Apple's subscription group identifier (auto_renewable only).") var group: String?
        @Option(help: "Apple's level in the group: 1 is the highest service (auto_renewable only).") var level: Int?
        @Option(help: "Comma-separated entitlement names the product unlocks. Default: the product id itself.") var entitlements: String?

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.products", defaultLevel: .error)
            let product = CatalogProduct(productID: productId, type: type, subscriptionGroup: group, groupLevel: level,
                                         entitlements: entitlements.map(EnvironmentReader.split))
            do { try product.validate() } catch { throw ConfigurationError("\(error)") }
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-products"), size: 1)
            defer { pool.shutdown() }
            try await pool.withConnection { try ProductCatalog.set(product, on: $0) }
            print("product \(product.productID): \(product.type)"
                + (product.subscriptionGroup.map { ", group \($0)" } ?? "") + (product.groupLevel.map { " level \($0)" } ?? "")
                + ", entitlements " + (product.entitlements ?? [product.productID]).joined(separator: ","))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the catalog, grouped by subscription group and level.")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.products", defaultLevel: .error)
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-products"), size: 1)
            defer { pool.shutdown() }
            let products = try await pool.withConnection { try ProductCatalog.list(on: $0) }
            let rows = [["product_id", "type", "group", "level", "entitlements"]] + products.map {
                [$0.productID, $0.type, $0.subscriptionGroup ?? "", $0.groupLevel.map(String.init) ?? "",
                 ($0.entitlements ?? [$0.productID]).joined(separator: ",")]
            }
            let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                print(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
            }
            if products.isEmpty { print("(no products: types are inferred from Apple's answers, each product is its own entitlement)") }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a product from the catalog (the ledger keeps its grants).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The App Store product id.") var productId: String

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.products", defaultLevel: .error)
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-products"), size: 1)
            defer { pool.shutdown() }
            let id = productId
            let removed = try await pool.withConnection { try ProductCatalog.remove(productID: id, on: $0) }
            print(removed ? "removed \(id)" : "no product \(id)")
        }
    }
}
