@testable import AppStoreServerAPI
import Foundation
import Testing

@Suite("Server API models: lenient decoding, Apple's wire format")
struct ServerAPIModelTests {
    private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test func historyIgnoresUnknownFieldsAndOddTypes() throws {
        let page = try decode(HistoryResponse.self, """
            {"revision":"r1","hasMore":"yes","bundleId":"com.example.app","appAppleId":"123",
             "environment":"Sandbox","signedTransactions":["a.b.c"],"brandNew":{"x":1}}
            """)
        #expect(page.revision == "r1")
        #expect(page.hasMore == nil)   // ill-typed: nil, not a failure
        #expect(page.appAppleId == 123)
        #expect(page.signedTransactions == ["a.b.c"])
    }

    @Test func subscriptionStatusesDecodeNestedGroups() throws {
        let response = try decode(StatusResponse.self, """
            {"environment":"Production","data":[{"subscriptionGroupIdentifier":"g1","lastTransactions":[
              {"status":1,"originalTransactionId":"100","signedTransactionInfo":"t","signedRenewalInfo":"r"}]}]}
            """)
        #expect(response.data?.first?.lastTransactions?.first?.status == 1)
        #expect(response.data?.first?.lastTransactions?.first?.signedRenewalInfo == "r")
    }

    @Test func notificationHistoryRequestSendsMillisecondsAndOmitsWhatIsUnset() throws {
        let request = NotificationHistoryRequest(startDate: Date(timeIntervalSince1970: 1), endDate: Date(timeIntervalSince1970: 2.5))
        let json = String(decoding: ServerAPIJSON.encode(request), as: UTF8.self)
        #expect(json == #"{"endDate":2500,"startDate":1000}"#)
    }

    @Test func consumptionRequestIsApplesV2BodyAndLeavesOutWhatIsUnset() throws {
        let json = String(decoding: ServerAPIJSON.encode(ConsumptionRequest()), as: UTF8.self)
        #expect(json == #"{"customerConsented":true,"deliveryStatus":"DELIVERED","sampleContentProvided":false}"#)
        let full = ConsumptionRequest(deliveryStatus: .undeliveredOther, consumptionPercentage: 0, refundPreference: .grantFull)
        let fullJSON = String(decoding: ServerAPIJSON.encode(full), as: UTF8.self)
        #expect(fullJSON.contains(#""deliveryStatus":"UNDELIVERED_OTHER""#) && fullJSON.contains(#""refundPreference":"GRANT_FULL""#))
        #expect(fullJSON.contains(#""consumptionPercentage":0"#))
    }

    @Test func historyFiltersBecomeRepeatedQueryItems() {
        let request = TransactionHistoryRequest(productIds: ["a", "b"], sort: .descending, revoked: false)
        #expect(request.queryItems.map { "\($0.0)=\($0.1)" } == ["productId=a", "productId=b", "sort=DESCENDING", "revoked=false"])
    }

    @Test func identifiersAreOnePathSegmentWhateverTheyHold() {
        #expect(ServerAPIPath.segment("2000000123") == "2000000123")
        #expect(ServerAPIPath.segment("../notifications/test") == "..%2Fnotifications%2Ftest")
        #expect(ServerAPIPath.segment("..") == "%2E%2E")
        #expect(ServerAPIPath.segment("a b?c#d") == "a%20b%3Fc%23d")
        #expect(ServerAPIPath.query([("revision", "a+b=c")]) == "?revision=a%2Bb%3Dc")
    }
}
