/// How the fake App Store behaves. Every parameter defaults to Apple on a good day.
public struct FakeAppStoreConfiguration: Sendable {
    /// Address to listen on. Default: `127.0.0.1` (loopback only).
    public var host: String
    /// Port; 0 picks a free one (read it back from `FakeAppStoreServer.port`). Default: 0.
    public var port: Int
    /// Time before each answer, drawn uniformly from the range. Default: 3–6 s.
    public var latency: FakeDurationRange
    /// Outage windows relative to start. Default: none.
    public var outages: [FakeOutage]
    /// Probability of HTTP 503 (after latency). Default: 0.
    public var p503: Double
    /// Probability of status 21005 (receipt server unavailable). Default: 0.
    public var p21005: Double
    /// Probability of status 21199 with `is-retryable: true`. Default: 0.
    public var p21199: Double
    /// Probability of never answering (the connection stays open until the client gives up). Default: 0.
    public var pHang: Double
    /// Probability that a valid answer's JSON is cut in half. Default: 0.
    public var pTruncated: Double
    /// When set, requests whose `password` differs get 21004. Default: `nil` (not checked).
    public var sharedSecret: String?
    /// The random faults above (`p503` … `pTruncated`) stop this long after start, so a chaos run
    /// can measure recovery once faults end. Default: `nil` (they never stop).
    public var randomFaultsEnd: Duration?
    /// The App Store Server API half: keys, app, rate limits, notifications. Default: `.init()`.
    public var serverAPI: FakeServerAPIConfiguration
    /// What the first verifyReceipt requests meet, in arrival order, before outages and random
    /// faults are looked at; nil entries are answered as usual. For tests that need two requests
    /// sent at once to meet different faults (one hangs, the other gets a 21005), which no time
    /// window can separate. Default: none.
    public var firstRequests: [FakeScriptedAnswer?] = []

    public init(
        host: String = "127.0.0.1", port: Int = 0,
        latency: FakeDurationRange = FakeDurationRange(lower: .seconds(3), upper: .seconds(6)),
        outages: [FakeOutage] = [], p503: Double = 0, p21005: Double = 0, p21199: Double = 0,
        pHang: Double = 0, pTruncated: Double = 0, sharedSecret: String? = nil, randomFaultsEnd: Duration? = nil,
        serverAPI: FakeServerAPIConfiguration = .init()
    ) {
        self.host = host
        self.port = port
        self.latency = latency
        self.outages = outages
        self.p503 = p503
        self.p21005 = p21005
        self.p21199 = p21199
        self.pHang = pHang
        self.pTruncated = pTruncated
        self.sharedSecret = sharedSecret
        self.randomFaultsEnd = randomFaultsEnd
        self.serverAPI = serverAPI
    }

    /// Whether the random faults apply at `elapsed` since start.
    public func randomFaultsApply(at elapsed: Duration) -> Bool {
        randomFaultsEnd.map { elapsed < $0 } ?? true
    }

    /// The outage in force at `elapsed` since start, if any (the first listed wins).
    public func outage(at elapsed: Duration) -> FakeOutage? {
        outages.first { $0.contains(elapsed) }
    }
}

/// A fault a scripted request meets (`FakeAppStoreConfiguration.firstRequests`).
public enum FakeScriptedAnswer: Sendable, Equatable {
    /// Never answered.
    case hang
    /// This status after the configured latency (21005, 21199: Apple's trouble).
    case status(Int)
}
