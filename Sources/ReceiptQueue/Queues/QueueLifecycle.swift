import Foundation

/// One leased queue's state machine, as a spec: its states, the events that move a row, one pure
/// `next`, and the table whose columns carry the state, the lease, the attempts and the budget.
/// Every statement that moves a row of the table carries out one event, and
/// `QueueAgreementTests` checks each statement's SQL against `next` (a row in every state, with
/// its budget left and spent, through the statement). The specs: `JobLifecycle`
/// (`receiptq.jobs`), `NotificationLifecycle`, `DeliveryLifecycle`, `ConsumptionLifecycle`,
/// `OrderLifecycle`; `QueueCatalog.all` lists them.
public protocol QueueLifecycle: Sendable {
    associatedtype State: QueueState
    associatedtype Event: Hashable & Sendable
    /// What a row carries that `next` needs beyond its state: claims so far, when its budget
    /// started, its deadline.
    associatedtype Facts: Sendable

    /// Where the queue lives and which columns carry its lease, attempts and budget.
    static var table: QueueTable { get }

    /// The state after `event`, or nil when the event cannot happen in `state` (the statement
    /// that carries it out then leaves the row alone).
    func next(_ state: State, on event: Event, facts: Facts, now: Date) -> State?
}

/// A queue's states, as its table spells them.
public protocol QueueState: RawRepresentable, CaseIterable, Hashable, Sendable where RawValue == String {
    /// The state of a leased row (`locked_by` and `locked_until` set); nil for a queue without
    /// leases (orders).
    static var leased: Self? { get }
    /// Terminal states never change again, except by ops (a re-drive).
    var isTerminal: Bool { get }
}

extension QueueState {
    /// `'a', 'b'`: the states as an SQL list, for statements and checks that name a set of them.
    public static func sqlList(_ states: [Self]) -> String {
        states.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }
}
