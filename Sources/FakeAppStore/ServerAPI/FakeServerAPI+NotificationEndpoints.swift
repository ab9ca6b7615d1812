import Foundation

/// Get Notification History and the two test-notification endpoints, answered from what the fake
/// sent.
extension FakeServerAPI {
    private struct NotificationHistoryQuery: Decodable {
        var startDate: Int64?
        var endDate: Int64?
        var notificationType: String?
        var notificationSubtype: String?
        var transactionId: String?
        var onlyFailures: Bool?
    }

    private struct NotificationHistoryBody: Encodable {
        struct Item: Encodable {
            var signedPayload: String
            var sendAttempts: [FakeSendAttempt]
        }
        var paginationToken: String?
        var hasMore: Bool
        var notificationHistory: [Item]
    }

    func notificationHistory(_ environment: FakeEnvironment, _ query: [(String, String)], _ body: [UInt8]) -> FakeServerAPIAnswer {
        guard let request = try? JSONDecoder().decode(NotificationHistoryQuery.self, from: Data(body)) else {
            return .appleError(400, 4_000_000, "Invalid request.")
        }
        guard let start = request.startDate else { return .appleError(400, 4_000_015, "Invalid start date.") }
        guard let end = request.endDate else { return .appleError(400, 4_000_016, "Invalid end date.") }
        guard start < end else { return .appleError(400, 4_000_013, "Start date after end date.") }
        guard request.transactionId == nil || request.notificationType == nil else {
            return .appleError(400, 4_000_019, "Multiple filters supplied.")
        }
        var selected = notifications.all().filter { $0.environment == environment && $0.createdAt >= start && $0.createdAt < end }
        if let type = request.notificationType { selected.removeAll { $0.notificationType != type } }
        if let subtype = request.notificationSubtype { selected.removeAll { $0.subtype != subtype } }
        if let id = request.transactionId {
            let customer = purchases.transaction(id, in: environment)?.customer
            selected.removeAll { $0.customer == nil || $0.customer != customer }
        }
        if request.onlyFailures == true { selected.removeAll(where: \.delivered) }
        guard let offset = Self.offset(query.first { $0.0 == "paginationToken" }?.1, prefix: "page.") else {
            return .appleError(400, 4_000_014, "Invalid pagination token.")
        }
        let page = selected.dropFirst(offset).prefix(Self.pageSize)
        let next = offset + page.count
        let hasMore = next < selected.count
        return .json(200, NotificationHistoryBody(
            paginationToken: hasMore ? "page.\(next)" : nil, hasMore: hasMore,
            notificationHistory: page.map { .init(signedPayload: $0.signedPayload, sendAttempts: $0.attempts) }))
    }

    func requestTestNotification(_ environment: FakeEnvironment) -> FakeServerAPIAnswer {
        guard let token = try? sendTestNotification(environment: environment) else {
            return .appleError(404, 4_040_007, "Server notification URL not found.")
        }
        return .json(200, ["testNotificationToken": token])
    }

    private struct TestStatusBody: Encodable {
        var signedPayload: String
        var sendAttempts: [FakeSendAttempt]
    }

    func testNotificationStatus(_ token: String, _ environment: FakeEnvironment) -> FakeServerAPIAnswer {
        guard let sent = notifications.all().first(where: { $0.testNotificationToken == token && $0.environment == environment }) else {
            return .appleError(404, 4_040_008, "Test notification not found.")
        }
        return .json(200, TestStatusBody(signedPayload: sent.signedPayload, sendAttempts: sent.attempts))
    }
}
