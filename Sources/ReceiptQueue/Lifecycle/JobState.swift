/// Where a job is in its life. Drawn in the README:
///
///     queued ──claim──▶ verifying ──complete──▶ granted | already_granted | rejected | failed
///        ▲                 │  │
///        │  retry later ◀──┘  └──▶ timed_out ──scheduler──▶ queued
///        └── lease expired (scheduler) / released on shutdown
public enum JobState: String, Sendable, CaseIterable, Codable {
    case queued
    case verifying
    case timedOut = "timed_out"
    case granted
    case alreadyGranted = "already_granted"
    case rejected
    case failed

    /// Terminal states never change again; they carry `finished_at`.
    public var isTerminal: Bool {
        switch self {
        case .granted, .alreadyGranted, .rejected, .failed: true
        case .queued, .verifying, .timedOut: false
        }
    }
}

extension JobState {
    /// The terminal states as an SQL list, `('granted', …)`: the one spelling that statements and
    /// the partial index `jobs_finished_idx` share (a test checks the index's predicate).
    static let terminalSQL = "(" + allCases.filter(\.isTerminal).map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
}
