import AppStoreServerAPI
import Foundation
import Testing

/// One row per rule of `ServerAPIClassification.classify`: what each of Apple's answers means.
@Suite("Server API answers: one classification of (HTTP status, body)")
struct ServerAPIClassificationTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func classify(_ status: Int, _ body: String = "", retryAfter: String? = nil) -> ServerAPIClassification {
        ServerAPIClassification.classify(httpStatus: status, body: Array(body.utf8), retryAfter: retryAfter, now: Self.now)
    }

    private func kind(_ status: Int, _ body: String = "", retryAfter: String? = nil) -> ServerAPIError.Kind? {
        guard case .failure(let error) = classify(status, body, retryAfter: retryAfter) else { return nil }
        return error.kind
    }

    private static func error(_ code: Int) -> String { #"{"errorCode":\#(code),"errorMessage":"message"}"# }

    @Test(arguments: [200, 201, 202, 204])
    func everyTwoHundredIsSuccess(status: Int) {
        #expect(classify(status, "{}") == .success)
    }

    @Test(arguments: [
        (404, 4_040_002), (404, 4_040_004), (404, 4_040_006), (500, 5_000_001),
        (400, 4_040_002),   // the code decides, whatever the status
    ])
    func appleRetryableCodesAreRetryable(status: Int, code: Int) {
        guard case .failure(let error) = classify(status, Self.error(code)) else { Issue.record("success?"); return }
        #expect(error.kind == .retryable)
        #expect(error.isRetryable)
        #expect(error.errorCode == Int64(code))
    }

    @Test(arguments: [500, 502, 503, 504, 599])
    func anyServerErrorIsRetryableWithOrWithoutABody(status: Int) {
        #expect(kind(status) == .retryable)
        #expect(kind(status, "<html>oops</html>") == .retryable)
        #expect(kind(status, Self.error(5_000_000)) == .retryable)
    }

    @Test func transactionIdNotFoundMeansAskTheOtherEnvironment() {
        guard case .failure(let error) = classify(404, Self.error(4_040_010)) else { Issue.record("success?"); return }
        #expect(error.kind == .transactionNotFound)
        #expect(!error.isRetryable)
        #expect(!error.isConfigurationProblem)
    }

    @Test func originalTransactionIdNotFoundAlsoMeansAskTheOtherEnvironment() {
        #expect(kind(404, Self.error(4_040_005)) == .transactionNotFound)
    }

    @Test(arguments: [4_040_001, 4_040_003, 4_040_007, 4_040_008, 4_040_009])
    func otherNotFoundCodesAreNotFound(code: Int) {
        #expect(kind(404, Self.error(code)) == .notFound)
    }

    @Test func aBareFourOhFourIsNotFoundNotAMissingTransaction() {
        #expect(kind(404) == .notFound)
    }

    @Test func unauthorizedIsOurConfiguration() {
        guard case .failure(let error) = classify(401) else { Issue.record("success?"); return }
        #expect(error.kind == .unauthorized)
        #expect(error.isConfigurationProblem)
        #expect(!error.isRetryable)
    }

    @Test func rateLimitedUntilRetryAfterInUnixMilliseconds() {
        #expect(kind(429, Self.error(4_290_000), retryAfter: "1700000001500") == .rateLimited(until: Date(timeIntervalSince1970: 1_700_000_001.5)))
    }

    @Test func rateLimitedWithoutRetryAfterHasNoInstant() {
        #expect(kind(429) == .rateLimited(until: nil))
        #expect(kind(429, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT") == .rateLimited(until: nil))
    }

    @Test func rateLimitErrorCodeUnderAnotherStatusIsStillRateLimited() {
        #expect(kind(400, Self.error(4_290_000), retryAfter: "2") == .rateLimited(until: Self.now.addingTimeInterval(2)))
    }

    @Test(arguments: [400, 403, 405, 409, 422])
    func otherClientErrorsAreInvalidRequests(status: Int) {
        guard case .failure(let error) = classify(status, Self.error(4_000_006)) else { Issue.record("success?"); return }
        #expect(error.kind == .invalidRequest)
        #expect(!error.isRetryable)
    }

    @Test(arguments: [100, 301, 302, 304])
    func undocumentedStatusesAreUnexpectedAndRetryable(status: Int) {
        #expect(kind(status) == .unexpectedStatus)
    }

    @Test func anErrorCodeSentAsAStringIsRead() {
        #expect(kind(404, #"{"errorCode":"4040010"}"#) == .transactionNotFound)
    }

    @Test func unknownFieldsInAnErrorBodyAreIgnored() {
        #expect(kind(404, #"{"errorCode":4040010,"errorMessage":"x","newField":[1,2]}"#) == .transactionNotFound)
    }

    @Test func descriptionIsTerseAndDebugDescriptionCarriesApplesMessage() {
        guard case .failure(let error) = classify(404, Self.error(4_040_010)) else { Issue.record("success?"); return }
        #expect(!error.description.contains("message"))
        #expect(error.description.contains("4040010"))
        #expect(error.debugDescription.contains("message"))
    }
}
