import Foundation
import Postgres

/// One entry of the operator's catalog (`receiptq.products`): what kind of product it is, where it
/// sits in its subscription group, and the entitlement names it unlocks. Optional: without an
/// entry the ledger infers the type from Apple's answer and the product id is its own entitlement.
public struct CatalogProduct: Sendable, Hashable {
    public static let types = ["consumable", "non_consumable", "auto_renewable", "non_renewing"]

    public var productID: String
    /// consumable, non_consumable, auto_renewable or non_renewing.
    public var type: String
    /// Apple's subscription group identifier (auto-renewable products).
    public var subscriptionGroup: String?
    /// Apple's level within the group: 1 is the highest service.
    public var groupLevel: Int?
    /// Entitlement names; nil: the product id itself.
    public var entitlements: [String]?

    public init(productID: String, type: String, subscriptionGroup: String? = nil, groupLevel: Int? = nil, entitlements: [String]? = nil) {
        self.productID = productID
        self.type = type
        self.subscriptionGroup = subscriptionGroup
        self.groupLevel = groupLevel
        self.entitlements = entitlements
    }

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    /// Refuses what the ledger could not use, naming the field.
    public func validate() throws {
        func name(_ value: String, _ field: String) throws {
            guard !value.isEmpty, value.utf8.count <= 256, value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7f }) else {
                throw Invalid(description: "\(field): 1-256 characters, no spaces or control characters")
            }
        }
        try name(productID, "--product-id")
        guard Self.types.contains(type) else {
            throw Invalid(description: "--type: one of \(Self.types.joined(separator: ", "))")
        }
        if let subscriptionGroup { try name(subscriptionGroup, "--group") }
        if let groupLevel, groupLevel < 1 { throw Invalid(description: "--level: 1 (the highest service) or more") }
        if (subscriptionGroup != nil || groupLevel != nil) && type != "auto_renewable" {
            throw Invalid(description: "--group and --level: only for an auto_renewable product")
        }
        if groupLevel != nil && subscriptionGroup == nil { throw Invalid(description: "--level: needs --group") }
        if let entitlements {
            guard !entitlements.isEmpty, entitlements.count <= 32 else { throw Invalid(description: "--entitlements: 1 to 32 names") }
            for entitlement in entitlements { try name(entitlement, "--entitlements") }
        }
    }
}

/// The catalog's statements: one home for each.
public enum ProductCatalog {
    static let upsertSQL = """
        INSERT INTO receiptq.products (product_id, type, subscription_group, group_level, entitlements)
        VALUES ($1, $2, $3, $4, (SELECT array_agg(x) FROM json_array_elements_text($5::json) AS x))
        ON CONFLICT (product_id) DO UPDATE
            SET type = EXCLUDED.type, subscription_group = EXCLUDED.subscription_group, group_level = EXCLUDED.group_level,
                entitlements = EXCLUDED.entitlements
        """
    static let listSQL = """
        SELECT product_id, type, subscription_group, group_level, to_json(entitlements)::text AS entitlements
        FROM receiptq.products ORDER BY subscription_group NULLS LAST, group_level NULLS LAST, product_id
        """
    static let removeSQL = "DELETE FROM receiptq.products WHERE product_id = $1 RETURNING product_id"

    public static func set(_ product: CatalogProduct, on connection: PostgresConnection) throws {
        try product.validate()
        let names = try product.entitlements.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try connection.query(upsertSQL, [product.productID, product.type, product.subscriptionGroup, product.groupLevel, names])
    }

    public static func list(on connection: PostgresConnection) throws -> [CatalogProduct] {
        try connection.query(listSQL).map { row in
            CatalogProduct(productID: try row.decode("product_id"), type: try row.decode("type"),
                           subscriptionGroup: try row.decodeIfPresent("subscription_group"), groupLevel: try row.decodeIfPresent("group_level"),
                           entitlements: try row.decodeIfPresent("entitlements", as: String.self)
                               .map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) })
        }
    }

    /// False when there was no such product.
    public static func remove(productID: String, on connection: PostgresConnection) throws -> Bool {
        try !connection.query(removeSQL, [productID]).isEmpty
    }
}
