import FakeAppStore
import Foundation
import Testing

/// A deterministic generator so latency draws repeat.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

struct FakeDecisionTests {
    let production = FakeReceipt(bundleID: "com.example.app", environment: .production, inApp: [
        FakeTransaction(transactionID: "1000000001", productID: "com.example.coins100"),
    ])
    let sandbox = FakeReceipt(bundleID: "com.example.app", environment: .sandbox, inApp: [
        FakeTransaction(transactionID: "2000000001", productID: "com.example.coins100"),
    ])
    var quick = FakeAppStoreConfiguration(latency: FakeDurationRange(lower: .zero, upper: .zero))

    private func body(_ receipt: String, password: String? = nil) -> [UInt8] {
        var object: [String: Any] = ["receipt-data": receipt]
        if let password { object["password"] = password }
        return Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }

    private func decide(
        _ body: [UInt8], at endpoint: FakeEndpoint = .production, elapsed: Duration = .seconds(1),
        configuration: FakeAppStoreConfiguration? = nil
    ) -> FakeDecision {
        var random = SplitMix64(state: 42)
        return FakeDecision.decide(endpoint: endpoint, body: body, elapsed: elapsed, configuration: configuration ?? quick, random: &random)
    }

    private func status(of decision: FakeDecision) -> Int? {
        guard case .respond(let answer) = decision,
              let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] else { return nil }
        return object["status"] as? Int
    }

    @Test func theFirstRequestsMeetTheirScriptedFaultsInArrivalOrderAndTheRestAreDecidedAsUsual() {
        var configuration = quick
        configuration.firstRequests = [.hang, nil, .status(21_005)]
        var random = SplitMix64(state: 1)
        #expect(FakeDecision.scripted(1, configuration: configuration, random: &random) == .hang)
        #expect(FakeDecision.scripted(2, configuration: configuration, random: &random) == nil)
        guard case .respond(let answer) = FakeDecision.scripted(3, configuration: configuration, random: &random) else {
            Issue.record("the third request's 21005 was not scripted")
            return
        }
        #expect(answer.outcome == "21005")
        #expect(FakeDecision.scripted(4, configuration: configuration, random: &random) == nil)
        #expect(FakeDecision.scripted(1, configuration: quick, random: &random) == nil)
    }

    @Test func productionReceiptAtProductionIsValidAndCountsItsTransactions() {
        let decision = decide(body(production.base64()))
        #expect(status(of: decision) == 0)
        guard case .respond(let answer) = decision else { Issue.record("no answer"); return }
        #expect(answer.validTransactionIDs == ["1000000001"])
        #expect(answer.outcome == "0")
    }

    /// Apple's server knows the appAccountToken each transaction was bought with, whatever the
    /// receipt holds: the ownership rules read it from verifyReceipt's answer.
    @Test func theAnswerCarriesTheAppAccountTokenTheTransactionWasSoldWith() throws {
        let token = "6d2c9f4e-0b7a-4c1e-9a55-3f1d2e8b7c60"
        func inApp(_ reader: FakeReceiptReader) throws -> [[String: Any]] {
            var random = SplitMix64(state: 42)
            let decision = FakeDecision.decide(endpoint: .production, body: body(production.base64()), elapsed: .seconds(1),
                                               configuration: quick, receipts: reader, random: &random)
            guard case .respond(let answer) = decision else { throw FakeTestError() }
            let object = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
            return (object?["receipt"] as? [String: Any])?["in_app"] as? [[String: Any]] ?? []
        }
        let sold = try inApp(FakeReceiptReader(accountTokens: { $0 == "1000000001" ? token : nil }))
        #expect(sold.count == 1 && sold.first?["app_account_token"] as? String == token)
        #expect(try inApp(FakeReceiptReader()).first?["app_account_token"] == nil, "none without a token")
    }

    struct FakeTestError: Error {}

    @Test func sandboxReceiptAtProductionIs21007() {
        #expect(status(of: decide(body(sandbox.base64()))) == 21007)
    }

    @Test func productionReceiptAtSandboxIs21008() {
        #expect(status(of: decide(body(production.base64()), at: .sandbox)) == 21008)
    }

    @Test func sandboxReceiptAtSandboxIsValid() {
        #expect(status(of: decide(body(sandbox.base64()), at: .sandbox)) == 0)
    }

    @Test(arguments: ["", "not json", "[1,2]", "{\"receipt-data\": 5}", "\u{0}\u{1}\u{2}"])
    func garbageRequestBodiesGet21000(text: String) {
        #expect(status(of: decide(Array(text.utf8))) == 21000)
    }

    @Test(arguments: ["%%%", "aGVsbG8=", "not base64 at all"])
    func undecodableReceiptDataGets21002(receipt: String) {
        #expect(status(of: decide(body(receipt))) == 21002)
    }

    @Test func lineWrappedBase64Gets21002LikeApple() {
        var wrapped = production.base64()
        wrapped.insert(contentsOf: "\r\n", at: wrapped.index(wrapped.startIndex, offsetBy: 10))
        #expect(status(of: decide(body(wrapped))) == 21002)
    }

    @Test func wrongSharedSecretGets21004() {
        var configuration = quick
        configuration.sharedSecret = "right"
        #expect(status(of: decide(body(production.base64(), password: "wrong"), configuration: configuration)) == 21004)
        #expect(status(of: decide(body(production.base64()), configuration: configuration)) == 21004)
        #expect(status(of: decide(body(production.base64(), password: "right"), configuration: configuration)) == 0)
    }

    @Test func forcedStatusIsAnsweredAsIs() {
        var receipt = production
        receipt.forcedStatus = 21003
        #expect(status(of: decide(body(receipt.base64()))) == 21003)
    }

    @Test func outageWindowsApplyOnlyInsideTheirWindow() {
        var configuration = quick
        configuration.outages = [
            FakeOutage(start: .seconds(30), end: .seconds(90), kind: .refused),
            FakeOutage(start: .seconds(100), end: .seconds(110), kind: .serviceUnavailable),
            FakeOutage(start: .seconds(120), end: .seconds(130), kind: .html200),
        ]
        let request = body(production.base64())
        #expect(decide(request, elapsed: .seconds(29), configuration: configuration).outcome == "0")
        #expect(decide(request, elapsed: .seconds(30), configuration: configuration) == .closeConnection)
        #expect(decide(request, elapsed: .seconds(95), configuration: configuration).outcome == "0")
        #expect(decide(request, elapsed: .seconds(105), configuration: configuration).outcome == "http503")
        guard case .respond(let page) = decide(request, elapsed: .seconds(125), configuration: configuration) else { Issue.record("no page"); return }
        #expect(page.httpStatus == 200)
        #expect(page.contentType.hasPrefix("text/html"))
        #expect(page.validTransactionIDs.isEmpty)
    }

    @Test func probabilitiesOfOneAlwaysFire() {
        let request = body(production.base64())
        var configuration = quick
        configuration.pHang = 1
        #expect(decide(request, configuration: configuration) == .hang)
        configuration = quick
        configuration.p503 = 1
        #expect(decide(request, configuration: configuration).outcome == "http503")
        configuration = quick
        configuration.p21005 = 1
        #expect(status(of: decide(request, configuration: configuration)) == 21005)
        configuration = quick
        configuration.p21199 = 1
        guard case .respond(let answer) = decide(request, configuration: configuration) else { Issue.record("no answer"); return }
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"status":21199,"is-retryable":true}"#)
    }

    @Test func randomFaultsStopAtTheirEnd() {
        let request = body(production.base64())
        var configuration = quick
        configuration.pHang = 1
        configuration.p21005 = 1
        configuration.randomFaultsEnd = .seconds(60)
        #expect(decide(request, elapsed: .seconds(59), configuration: configuration) == .hang)
        #expect(decide(request, elapsed: .seconds(60), configuration: configuration).outcome == "0")
    }

    @Test func truncatedAnswerIsNotJSONAndCountsNoValidTransaction() {
        var configuration = quick
        configuration.pTruncated = 1
        guard case .respond(let answer) = decide(body(production.base64()), configuration: configuration) else { Issue.record("no answer"); return }
        #expect(answer.outcome == "truncated")
        #expect(answer.validTransactionIDs.isEmpty)
        #expect((try? JSONSerialization.jsonObject(with: Data(answer.body))) == nil)
    }

    @Test func latencyIsDrawnWithinTheConfiguredRange() {
        let configuration = FakeAppStoreConfiguration()
        for seed in 0..<50 {
            var random = SplitMix64(state: UInt64(seed))
            guard case .respond(let answer) = FakeDecision.decide(
                endpoint: .production, body: body(production.base64()), elapsed: .zero,
                configuration: configuration, random: &random) else { Issue.record("no answer"); return }
            #expect(answer.delay >= .seconds(3) && answer.delay <= .seconds(6))
        }
    }

    @Test func mintedReceiptRoundTripsThroughBase64() {
        let receipt = FakeReceipt(bundleID: "b", environment: .sandbox, inApp: [
            FakeTransaction(transactionID: "9", productID: "sub", expiresDateMs: 1_800_000_000_000),
        ], forcedStatus: 21006).padded(toBase64Length: 6_000)
        #expect(FakeReceipt.decode(base64: receipt.base64()) == receipt)
        #expect(abs(receipt.base64().count - 6_000) < 64)
    }

    @Test func outageAndLatencyFlagsParse() {
        #expect(FakeOutage(parsing: "30s-90s") == FakeOutage(start: .seconds(30), end: .seconds(90), kind: .refused))
        #expect(FakeOutage(parsing: "1m-2m:503")?.kind == .serviceUnavailable)
        #expect(FakeOutage(parsing: "500ms-2s:html200")?.start == .milliseconds(500))
        #expect(FakeOutage(parsing: "90s-30s") == nil)
        #expect(FakeOutage(parsing: "30s-90s:teapot") == nil)
        #expect(FakeDurationRange(parsing: "3s-6s") == FakeDurationRange(lower: .seconds(3), upper: .seconds(6)))
        #expect(FakeDurationRange(parsing: "0") == FakeDurationRange(lower: .zero, upper: .zero))
    }
}
