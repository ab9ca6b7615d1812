import Foundation
import ReceiptQueue
import Testing

/// The check every queue's agreement tests share: rows made in every state of a spec (each with
/// facts that leave its budget and that spend it), one statement run over them, and each row found
/// in the state `next` names — or unchanged where `next` says the event cannot happen.
struct QueueAgreement<Spec: QueueLifecycle> {
    /// One row as it was made.
    struct Row<Key: Sendable>: Sendable {
        var key: Key
        var state: Spec.State
        var facts: Spec.Facts
        /// How its budget stands, for the failure message.
        var budget: String
    }

    let spec: Spec

    /// Expects every row in `rows` to be in `next(state, event)` (or unchanged); `read` gives a
    /// row's state now.
    func expect<Key: Sendable>(_ event: Spec.Event, _ rows: [Row<Key>], now: Date = Date(),
                               read: (Key) async throws -> Spec.State?,
                               sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(Set(rows.map(\.state)) == Set(Spec.State.allCases), "a row in every state", sourceLocation: sourceLocation)
        for row in rows {
            let expected = spec.next(row.state, on: event, facts: row.facts, now: now) ?? row.state
            let actual = try await read(row.key)
            #expect(actual == expected, "\(Spec.table.shortName): \(event) from \(row.state.rawValue), \(row.budget): \(String(describing: actual?.rawValue))",
                    sourceLocation: sourceLocation)
        }
    }
}
