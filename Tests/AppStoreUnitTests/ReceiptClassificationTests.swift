import AppStore
import Testing

/// One case per row of DESIGN.md's status table.
struct ReceiptClassificationTests {
    private func classify(_ json: String, httpStatus: Int = 200) -> ReceiptClassification {
        ReceiptClassification.classify(httpStatus: httpStatus, body: Array(json.utf8))
    }

    @Test func status0IsValid() {
        guard case .valid(let response) = classify(Fixtures.consumable) else { Issue.record("not valid"); return }
        #expect(response.status == 0)
    }

    @Test func status21006ExpiredSubscriptionIsValid() {
        guard case .valid(let response) = classify(Fixtures.subscription) else { Issue.record("not valid"); return }
        #expect(response.status == 21006)
    }

    @Test func status0WithoutReceiptIsRetryLaterNotValid() {
        guard case .retryLater(.unreadableResponse) = classify(#"{"status":0}"#) else { Issue.record("expected retry"); return }
    }

    @Test func status21007SwitchesToSandbox() {
        guard case .switchEnvironment(to: .sandbox) = classify(#"{"status":21007}"#) else { Issue.record("expected sandbox"); return }
    }

    @Test func status21008SwitchesToProduction() {
        guard case .switchEnvironment(to: .production) = classify(#"{"status":21008}"#) else { Issue.record("expected production"); return }
    }

    @Test func status21002IsARetryThatDoubtsTheReceipt() {
        guard case .retryLater(let reason) = classify(#"{"status":21002}"#) else { Issue.record("expected retry"); return }
        #expect(reason == .malformedOrTemporary)
        #expect(reason.doubtsTheReceipt)
    }

    @Test(arguments: [21005, 21009])
    func isRetryableIsIgnoredOutside21100To21199(status: Int) {
        guard case .retryLater(let reason) = classify("{\"status\":\(status),\"is_retryable\":false}") else {
            Issue.record("expected retry"); return
        }
        #expect(reason == .appleServerError(status: status, isRetryable: false))
        #expect(!reason.doubtsTheReceipt)
    }

    @Test(arguments: [(21003, RejectReason.notAuthentic), (21010, RejectReason.accountNotFound)])
    func notAuthenticAndAccountNotFoundAreRejected(status: Int, reason: RejectReason) {
        guard case .reject(let got) = classify("{\"status\":\(status)}") else { Issue.record("expected reject"); return }
        #expect(got == reason)
    }

    @Test func status21000IsRetryWithAlert() {
        guard case .retryLater(let reason) = classify(#"{"status":21000}"#) else { Issue.record("expected retry"); return }
        #expect(reason == .unreadableRequest)
        #expect(reason.shouldAlert)
    }

    @Test func status21004IsConfigurationError() {
        guard case .configurationError(.sharedSecretMismatch) = classify(#"{"status":21004}"#) else { Issue.record("expected config error"); return }
    }

    @Test(arguments: [21005, 21009, 21100, 21150, 21199])
    func appleServerErrorsAreRetryable(status: Int) {
        guard case .retryLater(.appleServerError(let got, _)) = classify("{\"status\":\(status)}") else { Issue.record("expected retry"); return }
        #expect(got == status)
    }

    @Test func isRetryableHintIsReadAsBoolOrNumberUnderEitherSpelling() {
        guard case .retryLater(let yes) = classify(Fixtures.internalErrorBoolHint),
              case .retryLater(let no) = classify(Fixtures.internalErrorNumericHint) else { Issue.record("expected retry"); return }
        #expect(yes == .appleServerError(status: 21199, isRetryable: true))
        #expect(!yes.doubtsTheReceipt)
        #expect(no == .appleServerError(status: 21150, isRetryable: false))
        #expect(no.doubtsTheReceipt)
    }

    @Test(arguments: [500, 502, 503, 429])
    func http5xxAnd429AreRetryLaterWithoutAlert(httpStatus: Int) {
        guard case .retryLater(let reason) = classify("busy", httpStatus: httpStatus) else { Issue.record("expected retry"); return }
        #expect(reason == .httpStatus(httpStatus))
        #expect(!reason.shouldAlert)
    }

    @Test func htmlPageWithStatus200IsRetryLater() {
        guard case .retryLater(.unreadableResponse) = classify(Fixtures.maintenancePage) else { Issue.record("expected retry"); return }
    }

    @Test func truncatedJSONIsRetryLater() {
        let cut = String(Fixtures.consumable.prefix(120))
        guard case .retryLater(.unreadableResponse) = classify(cut) else { Issue.record("expected retry"); return }
    }

    @Test(arguments: [1, 21001, 21011, 21200, 99999, -5])
    func unknownStatusIsRetryLaterWithAlertNeverReject(status: Int) {
        guard case .retryLater(let reason) = classify("{\"status\":\(status)}") else { Issue.record("expected retry"); return }
        #expect(reason == .unknownStatus(status))
        #expect(reason.shouldAlert)
    }
}
