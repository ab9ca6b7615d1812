import Foundation
import Synchronization

/// What the fake has done since it started, served as JSON by `GET /stats`:
/// `{"requests": N, "connections_accepted": N, "outcomes": {"0": n, "21007": n, "http503": n, "hang": n, "refused": n,
/// "client_gone": n, …}, "valid_answers_by_transaction_id": {"1000000001": n, …}}`.
/// `valid_answers_by_transaction_id` counts status 0/21006 answers actually written for a
/// receipt holding that transaction — how tests see that a receipt was verified twice.
public final class FakeAppStoreStats: Sendable {
    public struct Snapshot: Sendable, Codable, Equatable {
        public var requests: Int = 0
        /// TCP connections accepted; fewer than `requests` means clients reuse connections.
        public var connectionsAccepted: Int = 0
        public var outcomes: [String: Int] = [:]
        public var validAnswersByTransactionID: [String: Int] = [:]

        enum CodingKeys: String, CodingKey {
            case requests, connectionsAccepted = "connections_accepted", outcomes, validAnswersByTransactionID = "valid_answers_by_transaction_id"
        }
    }

    private let state = Mutex(Snapshot())

    public init() {}

    public func snapshot() -> Snapshot {
        state.withLock { $0 }
    }

    /// Counts a request as it arrives.
    func countRequest() {
        state.withLock { $0.requests += 1 }
    }

    /// Counts a connection as it is accepted.
    func countConnection() {
        state.withLock { $0.connectionsAccepted += 1 }
    }

    /// Counts an outcome when it happens (an answer written, a hang begun, a connection closed).
    func count(outcome: String, validTransactionIDs: [String] = []) {
        state.withLock { stats in
            stats.outcomes[outcome, default: 0] += 1
            for id in validTransactionIDs { stats.validAnswersByTransactionID[id, default: 0] += 1 }
        }
    }

    func json() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? Array(encoder.encode(snapshot()))) ?? Array("{}".utf8)
    }
}
