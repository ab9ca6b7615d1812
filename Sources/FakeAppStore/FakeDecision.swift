/// Which of the two imitated servers a request reached.
public enum FakeEndpoint: String, Sendable, CaseIterable {
    case production
    case sandbox
}

/// What the fake does with one verifyReceipt request. Produced by `FakeDecision.decide`, a pure
/// function; the network wiring only carries it out.
public enum FakeDecision: Sendable, Equatable {
    /// Close the connection without answering (a `refused` outage on a kept-alive connection).
    case closeConnection
    /// Never answer; hold the connection until the client gives up.
    case hang
    /// Answer after a delay.
    case respond(FakeAnswer)

    /// The stats key under which this decision is counted.
    public var outcome: String {
        switch self {
        case .closeConnection: "refused"
        case .hang: "hang"
        case .respond(let answer): answer.outcome
        }
    }
}

/// One HTTP answer of the fake.
public struct FakeAnswer: Sendable, Equatable {
    public var delay: Duration
    public var httpStatus: Int
    public var contentType: String
    public var body: [UInt8]
    /// Stats key: `"0"`, `"21007"`, … for JSON statuses; `"http503"`, `"html200"`, `"truncated"`.
    public var outcome: String
    /// Transactions counted as validly answered once this answer is sent (status 0/21006 only).
    public var validTransactionIDs: [String]
}
