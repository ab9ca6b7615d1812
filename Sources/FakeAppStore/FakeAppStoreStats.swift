import Foundation
import Synchronization

/// What the fake has done since it started, served as JSON by `GET /stats`:
/// `{"requests": N, "connections_accepted": N, "pending": N, "peak_pending": N, "outcomes": {"0": n, "21007": n, "http503": n, "hang": n, "refused": n,
/// "client_gone": n, …}, "valid_answers_by_transaction_id": {"1000000001": n, …}}`.
/// `valid_answers_by_transaction_id` counts status 0/21006 answers actually written for a
/// receipt holding that transaction — how tests see that a receipt was verified twice.
public final class FakeAppStoreStats: Sendable {
    public struct Snapshot: Sendable, Codable, Equatable {
        public var requests: Int = 0
        /// TCP connections accepted; fewer than `requests` means clients reuse connections.
        public var connectionsAccepted: Int = 0
        /// verifyReceipt requests read and waiting out their latency now, and the most at once:
        /// how tests see that a client sends requests together rather than in turns, however
        /// slowly a loaded machine runs.
        public var pending: Int = 0
        public var peakPending: Int = 0
        public var outcomes: [String: Int] = [:]
        public var validAnswersByTransactionID: [String: Int] = [:]
        /// verifyReceipt requests arrived in each second since the fake started (index = second):
        /// how benches see when requests resumed after an outage, and the idle gap before.
        public var requestsPerSecond: [Int] = []

        enum CodingKeys: String, CodingKey {
            case requests, connectionsAccepted = "connections_accepted", pending, peakPending = "peak_pending", outcomes,
                 validAnswersByTransactionID = "valid_answers_by_transaction_id", requestsPerSecond = "requests_per_second"
        }
    }

    private let state = Mutex(Snapshot())

    public init() {}

    public func snapshot() -> Snapshot {
        state.withLock { $0 }
    }

    /// Counts a request as it arrives, `elapsed` after the fake started; returns its place in
    /// arrival order (1 for the first).
    @discardableResult
    func countRequest(at elapsed: Duration) -> Int {
        let second = max(0, Int(elapsed.components.seconds))
        return state.withLock { stats in
            stats.requests += 1
            if second < 86_400 {
                if stats.requestsPerSecond.count <= second {
                    stats.requestsPerSecond.append(contentsOf: repeatElement(0, count: second + 1 - stats.requestsPerSecond.count))
                }
                stats.requestsPerSecond[second] += 1
            }
            return stats.requests
        }
    }

    /// A verifyReceipt answer is scheduled after its latency.
    func beganWaiting() {
        state.withLock {
            $0.pending += 1
            $0.peakPending = max($0.peakPending, $0.pending)
        }
    }

    /// That answer's latency is over (written, or its client gone).
    func endedWaiting() {
        state.withLock { $0.pending -= 1 }
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
