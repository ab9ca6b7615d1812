import Foundation

/// Get Transaction History's optional filters, sent as query parameters. Apple requires the same
/// filters on every page of one history, so the paging helper repeats them.
public struct TransactionHistoryRequest: Sendable, Hashable {
    public enum Sort: String, Sendable { case ascending = "ASCENDING", descending = "DESCENDING" }

    public var startDate: Date?
    public var endDate: Date?
    public var productIds: [String]
    /// `AUTO_RENEWABLE`, `NON_RENEWABLE`, `CONSUMABLE`, `NON_CONSUMABLE`.
    public var productTypes: [String]
    public var sort: Sort?
    public var subscriptionGroupIdentifiers: [String]
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    /// Only revoked (`true`) or only not revoked (`false`) transactions.
    public var revoked: Bool?

    public init(startDate: Date? = nil, endDate: Date? = nil, productIds: [String] = [], productTypes: [String] = [],
                sort: Sort? = nil, subscriptionGroupIdentifiers: [String] = [], inAppOwnershipType: String? = nil, revoked: Bool? = nil) {
        self.startDate = startDate
        self.endDate = endDate
        self.productIds = productIds
        self.productTypes = productTypes
        self.sort = sort
        self.subscriptionGroupIdentifiers = subscriptionGroupIdentifiers
        self.inAppOwnershipType = inAppOwnershipType
        self.revoked = revoked
    }

    /// The query items, in a fixed order (names repeat for lists, as Apple expects).
    var queryItems: [(String, String)] {
        var items: [(String, String)] = []
        if let startDate { items.append(("startDate", String(startDate.serverAPIMilliseconds))) }
        if let endDate { items.append(("endDate", String(endDate.serverAPIMilliseconds))) }
        items += productIds.map { ("productId", $0) }
        items += productTypes.map { ("productType", $0) }
        if let sort { items.append(("sort", sort.rawValue)) }
        items += subscriptionGroupIdentifiers.map { ("subscriptionGroupIdentifier", $0) }
        if let inAppOwnershipType { items.append(("inAppOwnershipType", inAppOwnershipType)) }
        if let revoked { items.append(("revoked", String(revoked))) }
        return items
    }
}
