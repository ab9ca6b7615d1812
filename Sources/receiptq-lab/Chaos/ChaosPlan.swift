import CommandSupport
import FakeAppStore

/// The scripted faults of a chaos run, as offsets from its start (the moment the fake App Store
/// starts), scaled to the run's duration so a short run still gets every kind of fault. The plan
/// is fixed, not random, so two runs inject the same faults at the same moments; only which
/// worker dies is drawn at random.
struct ChaosPlan: Sendable {
    enum Fault: Sendable, Equatable {
        /// SIGKILL one worker, start a new one `restartAfter` later.
        case killWorker(restartAfter: Duration)
        /// Restart PostgreSQL: `fast` (clients are told) or `immediate` (crash recovery).
        case restartPostgres(mode: String)
        /// SIGKILL the scheduler holding leadership; start it again `restartAfter` later.
        case killSchedulerLeader(restartAfter: Duration)
    }

    struct Event: Sendable, Equatable {
        var at: Duration
        var fault: Fault
    }

    /// How long faults are injected; afterwards the system must recover on its own.
    let duration: Duration
    /// Apple outage windows, played by the fake App Store.
    let outages: [FakeOutage]
    /// Process and database faults, in time order.
    let events: [Event]
    /// When the slow and abusive API clients are active.
    let abuseWindow: Range<Duration>
    /// When the backend's webhook receiver refuses connections, and when it fails 30% of deliveries.
    let receiverDown: Range<Duration>
    let receiverFlapping: Range<Duration>
    /// Share of Apple answers that are 21005 / 21199 (is-retryable), and of requests Apple never answers.
    let p21005 = 0.025, p21199 = 0.025, pHang = 0.01

    init(duration: Duration, workerKillInterval: Duration = .seconds(10)) {
        self.duration = duration
        func at(_ fraction: Double) -> Duration { duration * fraction }
        let outage = min(.seconds(15), duration * 0.1)
        // A 21002 storm ("malformed or temporary" for every receipt, as in February 2023): paid
        // receipts must come out of it granted, none rejected. 60 s in a run of 400 s or more.
        let storm = min(.seconds(60), duration * 0.15)
        outages = [
            FakeOutage(start: at(0.15), end: at(0.15) + outage, kind: .refused),
            FakeOutage(start: at(0.45), end: at(0.45) + outage, kind: .serviceUnavailable),
            FakeOutage(start: at(0.70), end: at(0.70) + outage, kind: .html200),
            FakeOutage(start: at(0.78), end: at(0.78) + storm, kind: .malformed21002),
        ]
        var events = [
            Event(at: at(0.35), fault: .restartPostgres(mode: "fast")),
            Event(at: at(0.52), fault: .killSchedulerLeader(restartAfter: .seconds(3))),
            Event(at: at(0.60), fault: .restartPostgres(mode: "immediate")),
        ]
        var next = at(0.08)
        while next < at(0.95) {
            events.append(Event(at: next, fault: .killWorker(restartAfter: .seconds(1))))
            next += workerKillInterval
        }
        self.events = events.sorted { $0.at < $1.at }
        abuseWindow = at(0.1)..<at(0.9)
        let receiverFault = min(.seconds(60), duration * 0.15)
        receiverDown = at(0.2)..<(at(0.2) + receiverFault)
        receiverFlapping = at(0.55)..<(at(0.55) + receiverFault)
    }

    /// When killed workers are started again, in seconds since start.
    var workerRestarts: [Double] {
        events.compactMap { event in
            if case .killWorker(let after) = event.fault { return (event.at + after).seconds }
            return nil
        }
    }

    /// The longest Apple outage: with two leases, the recovery bound after faults stop.
    var longestOutage: Duration {
        outages.map { $0.end - $0.start }.max() ?? .zero
    }
}
