import AppleTestPKI
import Foundation
import Synchronization

/// The fake's App Store Server API: Apple's endpoints served from the fake's own purchases,
/// signed by its own test CA, behind Apple's bearer-token check and per-endpoint rate limits,
/// with the fake's outage windows; plus a small admin API (`/fake/admin/…`) and the Swift methods
/// behind it to buy, renew, refund, revoke and family-share, and the notifications those send.
///
/// Order of checks for an `/inApps/…` request, as Apple's failures layer: outage window → bearer
/// token (401) → injected fault → rate limit (429 with `Retry-After` in UNIX ms) → the endpoint.
public final class FakeServerAPI: Sendable {
    public let configuration: FakeServerAPIConfiguration
    public let signer: FakeSigner
    private let transactionPKI = Mutex<RSATestPKI?>(nil)
    public let purchases: FakePurchases
    public let notifications: FakeNotifications
    let limiter: FakeRateLimiter
    let stats: FakeAppStoreStats
    let now: @Sendable () -> Date
    private let faults = Mutex<[FakeFault]>([])
    private let consumption = Mutex<[FakeConsumptionReport]>([])

    /// - Parameter now: the wall clock (tokens and payloads carry wall-clock times); for tests.
    public init(configuration: FakeServerAPIConfiguration = .init(), stats: FakeAppStoreStats = .init(),
                now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.configuration = configuration
        self.signer = try FakeSigner(pki: configuration.pki ?? TestPKI(), bundleId: configuration.bundleId)
        self.purchases = FakePurchases(now: now)
        self.notifications = FakeNotifications(configuration: configuration, now: now)
        self.limiter = FakeRateLimiter(configuration: configuration)
        self.stats = stats
        self.now = now
    }

    /// Who signs the fake's PKCS #7 app receipts: the test CA's leaf (it carries Apple's
    /// receipt-signing OID), so the same root (`rootCertificatePEM`) anchors receipts and JWS.
    public var receiptSigner: ReceiptSigningIdentity { signer.pki.receiptSigner }

    /// `receipt` as a real PKCS #7 app receipt signed by this fake, base64 as an app sends it, made
    /// at `createdAt` (default: the receipt's `creationDateMs`, else now).
    public func mintReceipt(_ receipt: FakeReceipt, createdAt: Date? = nil) throws -> String {
        let created = receipt.creationDateMs.map { Date(timeIntervalSince1970: Double($0) / 1_000) }
        return try receipt.pkcs7(signer: receiptSigner, createdAt: createdAt ?? created ?? now())
    }

    /// Who signs the fake's iOS 6 transaction receipts: Apple signed those with RSA keys, so an RSA
    /// identity of the fake's own, made on first use (an RSA key takes a moment to make, and most
    /// fakes never mint one).
    public func transactionReceiptSigner() throws -> ReceiptSigningIdentity {
        try transactionPKI.withLock { pki in
            if let pki { return pki.receiptSigner }
            let made = try RSATestPKI(names: .appleLike, reference: now())
            pki = made
            return made.receiptSigner
        }
    }

    /// `receipt`'s first purchase as an iOS 6 transaction receipt signed by this fake.
    public func mintTransactionReceipt(_ receipt: FakeReceipt) throws -> String {
        try receipt.transactionReceipt(signer: transactionReceiptSigner())
    }

    /// The root certificate a verifier must trust to accept what this fake signs.
    public var rootCertificatePEM: String { signer.rootCertificatePEM }

    /// Stops sending notifications.
    public func stop() async {
        await notifications.stop()
    }

    /// Answers requests for `/inApps/…`, `/fake/admin/…` and `/fake/root.pem`; `nil` for any other
    /// path (the verifyReceipt half's). `outage` is the fake's outage window in force, if any; it
    /// applies to the Server API only, never to the admin API that tests drive it with.
    public func answer(method: String, uri: String, authorization: String?, body: [UInt8], outage: FakeOutage?) -> FakeServerAPIAnswer? {
        let (path, query) = FakeQuery.split(uri)
        if path == "/fake/root.pem" {
            guard method == "GET" else { return .text(405, "GET only\n") }
            return .text(200, rootCertificatePEM, contentType: "application/x-pem-file")
        }
        if path.hasPrefix("/fake/admin/") {
            return admin(method: method, path: path, query: query, body: body)
        }
        guard let (environment, route) = FakeServerAPIRoute.parse(path) else { return nil }
        var answer = serverAPI(method: method, route: route, environment: environment, query: query,
                               authorization: authorization, body: body, outage: outage)
        answer.outcome = "api.\(route.endpoint).\(answer.closeConnection ? "refused" : String(answer.status))"
        if answer.delay == .zero, !answer.closeConnection, outage == nil {
            answer.delay = Self.draw(configuration.latency)
        }
        return answer
    }

    private func serverAPI(method: String, route: FakeServerAPIRoute, environment: FakeEnvironment, query: [(String, String)],
                           authorization: String?, body: [UInt8], outage: FakeOutage?) -> FakeServerAPIAnswer {
        if let outage {
            switch outage.kind {
            case .refused: return FakeServerAPIAnswer(status: 0, closeConnection: true)
            case .serviceUnavailable: return .text(503, "<html><body><h1>503 Service Unavailable</h1></body></html>", contentType: "text/html; charset=utf-8")
            case .html200: return .text(200, "<!DOCTYPE html><html><body><p>The App Store is temporarily unavailable.</p></body></html>",
                                        contentType: "text/html; charset=utf-8")
            case .malformed21002: break   // a verifyReceipt storm: the Server API has no 21002 and answers as usual
            }
        }
        guard route != .unknown else { return .text(404, "not found\n") }
        guard method == route.method else { return .text(405, "\(route.method) only\n") }
        let now = self.now()
        let verdict = FakeBearerCheck.check(
            authorization: authorization, keys: configuration.acceptedKeys, bundleId: configuration.bundleId,
            issuerId: configuration.issuerId, now: now, allowedSkew: Double(configuration.allowedClockSkew.components.seconds))
        guard verdict == .accepted else { return FakeServerAPIAnswer(status: 401, contentType: "text/plain", body: []) }
        if let fault = takeFault(for: route.endpoint) {
            return answer(for: fault, now: now)
        }
        if let retryAt = limiter.admit(route.endpoint, environment: environment, now: now) {
            var answer = FakeServerAPIAnswer.appleError(429, 4_290_000, "Rate limit exceeded.")
            answer.headers["Retry-After"] = String(FakePurchases.milliseconds(retryAt) + 1)
            return answer
        }
        return endpoint(route, environment: environment, query: query, body: body, now: now)
    }

    // MARK: - Faults

    /// The next `fault.count` requests (to its endpoint, or any) get this answer instead.
    public func inject(_ fault: FakeFault) throws {
        try fault.validate()
        faults.withLock { $0.append(fault) }
    }

    private func takeFault(for endpoint: String) -> FakeFault? {
        faults.withLock { faults in
            guard let index = faults.firstIndex(where: { $0.endpoint == nil || $0.endpoint == endpoint }) else { return nil }
            let fault = faults[index]
            let left = (fault.count ?? 1) - 1
            if left <= 0 { faults.remove(at: index) } else { faults[index].count = left }
            return fault
        }
    }

    private func answer(for fault: FakeFault, now: Date) -> FakeServerAPIAnswer {
        var answer = fault.errorCode.map { FakeServerAPIAnswer.appleError(fault.httpStatus, $0, "Injected by the fake.") }
            ?? FakeServerAPIAnswer(status: fault.httpStatus)
        if let delay = fault.retryAfterMilliseconds {
            answer.headers["Retry-After"] = String(FakePurchases.milliseconds(now) + delay)
        }
        return answer
    }

    // MARK: - Consumption reports

    func record(_ report: FakeConsumptionReport) {
        consumption.withLock { $0.append(report) }
    }

    /// Every Send Consumption Information request accepted, oldest first.
    public func consumptionReports() -> [FakeConsumptionReport] {
        consumption.withLock { $0 }
    }

    static func draw(_ range: FakeDurationRange) -> Duration {
        guard range.upper > range.lower else { return range.lower }
        let lower = range.lower.components, upper = range.upper.components
        let low = lower.seconds * 1_000_000_000 + lower.attoseconds / 1_000_000_000
        let high = upper.seconds * 1_000_000_000 + upper.attoseconds / 1_000_000_000
        return .nanoseconds(Int64.random(in: low...high))
    }
}

/// One Send Consumption Information request the fake accepted.
public struct FakeConsumptionReport: Codable, Sendable, Equatable {
    public var transactionId: String
    public var environment: FakeEnvironment
    /// The request body as sent.
    public var body: String
    public var receivedAt: Int64
    /// 2: Send Consumption Information (`/inApps/v2/…`); 1: Apple's deprecated v1.
    public var version: Int
}
