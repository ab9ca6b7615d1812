import Foundation

/// One answer of the API as a backend reads it: the HTTP status and, when a job holds the
/// submission, its id, state and verdict.
struct FraudAnswer: Sendable, Codable {
    var status: Int
    var id: Int64?
    var state: String?
    var verdict: String?
    var final = false
    /// The job's reason, or a problem's detail (never a receipt or a token).
    var reason: String?

    /// What the app is told: the verdict, else the HTTP status (`http 422`, `http 0` for no answer).
    var outcome: String { verdict ?? "http \(status)" }

    /// Verdicts that tell the app this purchase is the submitter's: `delivered`, and the two that
    /// only its owner can read (`already_delivered`, `revoked`).
    static let owning: Set<String> = ["delivered", "already_delivered", "revoked"]

    var isOwning: Bool { verdict.map(Self.owning.contains) ?? false }

    init(status: Int, id: Int64? = nil, state: String? = nil, verdict: String? = nil, final: Bool = false, reason: String? = nil) {
        self.status = status
        self.id = id
        self.state = state
        self.verdict = verdict
        self.final = final
        self.reason = reason
    }

    /// From a response body: a job's JSON (`{id, state, verdict, final, reason}`) or a problem
    /// (`{detail}`).
    init(status: Int, body: [UInt8]) {
        self.init(status: status)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else { return }
        id = (object["id"] as? NSNumber)?.int64Value
        state = object["state"] as? String
        verdict = object["verdict"] as? String
        final = object["final"] as? Bool ?? false
        reason = (object["reason"] ?? object["detail"]) as? String
    }
}
