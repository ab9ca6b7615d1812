import Foundation

extension FakeDecision {
    /// Decides the answer to one verifyReceipt request. Pure: the outcome depends only on the
    /// arguments (randomness comes from `random`, so tests pass a seeded or fixed generator).
    ///
    /// Order, as Apple's failures layer: outage window → hang → 503 → unreadable JSON (21000) →
    /// undecodable receipt (21002) → shared secret (21004) → `forced_status` → wrong environment
    /// (21007/21008) → 21005 → 21199 → valid (0), possibly truncated.
    /// - Parameters:
    ///   - endpoint: production or sandbox.
    ///   - body: the raw request body (anything, garbage included).
    ///   - elapsed: time since the fake started (for outage windows).
    ///   - receipts: how `receipt-data` is read (the JSON format; PKCS #7 signed by the fake's key).
    public static func decide(
        endpoint: FakeEndpoint, body: [UInt8], elapsed: Duration,
        configuration: FakeAppStoreConfiguration, receipts: FakeReceiptReader = FakeReceiptReader(),
        random: inout some RandomNumberGenerator
    ) -> FakeDecision {
        let delay = answerDelay(configuration.latency, &random)
        if let outage = configuration.outage(at: elapsed) {
            switch outage.kind {
            case .refused: return .closeConnection
            case .serviceUnavailable: return .respond(FakeBodies.serviceUnavailable(delay: .zero))
            case .html200: return .respond(FakeBodies.maintenancePage(delay: .zero))
            case .malformed21002: return .respond(FakeBodies.status(21_002, delay: delay))
            }
        }
        let faulty = configuration.randomFaultsApply(at: elapsed)
        if faulty && chance(configuration.pHang, &random) { return .hang }
        if faulty && chance(configuration.p503, &random) { return .respond(FakeBodies.serviceUnavailable(delay: delay)) }

        guard let request = try? JSONDecoder().decode(FakeVerifyRequest.self, from: Data(body)),
              let receiptData = request.receiptData else {
            return .respond(FakeBodies.status(21_000, delay: delay))
        }
        let receipt: FakeReceipt
        switch receipts.read(base64: receiptData) {
        case .receipt(let read): receipt = read
        case .notAuthentic: return .respond(FakeBodies.status(21_003, delay: delay))
        case .unreadable: return .respond(FakeBodies.status(21_002, delay: delay))
        }
        if let secret = configuration.sharedSecret, request.password != secret {
            return .respond(FakeBodies.status(21_004, delay: delay))
        }
        if let forced = receipt.forcedStatus {
            return .respond(FakeBodies.forced(forced, receipt: receipt, endpoint: endpoint, delay: delay))
        }
        switch (endpoint, receipt.environment) {
        case (.production, .sandbox): return .respond(FakeBodies.status(21_007, delay: delay))
        case (.sandbox, .production): return .respond(FakeBodies.status(21_008, delay: delay))
        default: break
        }
        if faulty && chance(configuration.p21005, &random) { return .respond(FakeBodies.status(21_005, delay: delay)) }
        if faulty && chance(configuration.p21199, &random) { return .respond(FakeBodies.status(21_199, isRetryable: true, delay: delay)) }
        var answer = FakeBodies.valid(status: 0, receipt: receipt, endpoint: endpoint, delay: delay)
        if faulty && chance(configuration.pTruncated, &random) {
            answer.body = Array(answer.body.prefix(answer.body.count / 2))
            answer.outcome = "truncated"
            answer.validTransactionIDs = []
        }
        return .respond(answer)
    }

    /// The scripted answer of the `number`-th request (1 for the first), if the configuration
    /// has one (`FakeAppStoreConfiguration.firstRequests`).
    public static func scripted(_ number: Int, configuration: FakeAppStoreConfiguration,
                                random: inout some RandomNumberGenerator) -> FakeDecision? {
        let script = configuration.firstRequests
        guard number >= 1, number <= script.count, let answer = script[number - 1] else { return nil }
        switch answer {
        case .hang: return .hang
        case .status(let status):
            return .respond(FakeBodies.status(status, isRetryable: status == 21_199 ? true : nil,
                                              delay: answerDelay(configuration.latency, &random)))
        }
    }

    /// Apple's time to answer: drawn uniformly from `latency`.
    private static func answerDelay(_ latency: FakeDurationRange, _ random: inout some RandomNumberGenerator) -> Duration {
        latency.lower == latency.upper ? latency.lower : .nanoseconds(Int64.random(
            in: latency.lower.nanoseconds...latency.upper.nanoseconds, using: &random))
    }

    private static func chance(_ probability: Double, _ random: inout some RandomNumberGenerator) -> Bool {
        guard probability > 0 else { return false }
        if probability >= 1 { return true }
        return Double.random(in: 0..<1, using: &random) < probability
    }
}

/// The request fields the fake reads. Anything else in the body is ignored.
struct FakeVerifyRequest: Decodable {
    let receiptData: String?
    let password: String?

    enum CodingKeys: String, CodingKey {
        case receiptData = "receipt-data", password
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        receiptData = try? container.decodeIfPresent(String.self, forKey: .receiptData)
        password = try? container.decodeIfPresent(String.self, forKey: .password)
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
