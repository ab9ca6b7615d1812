/// Stops a worker from hammering Apple while Apple is down (invariant 5). A pure state machine:
/// the worker feeds it results and asks it how many new verifications it may start.
///
/// closed ──(`failureThreshold` Apple-side failures in a row)──▶ open
/// open ──(`openDuration` passed)──▶ half-open: exactly one probe verification
/// half-open ──probe answered──▶ closed;  ──probe failed──▶ open, duration doubled up to `maxOpenDuration`
///
/// While open, the worker claims nothing; so during an outage each worker sends at most one
/// request per open period, whatever its concurrency.
public struct CircuitBreaker: Sendable, Equatable {
    public struct Configuration: Sendable, Equatable {
        /// Consecutive Apple-side failures that open the breaker. Default 20.
        public var failureThreshold = 20
        /// First open period. Default 2 s.
        public var openDuration: Duration = .seconds(2)
        /// Longest open period. Default 30 s.
        public var maxOpenDuration: Duration = .seconds(30)
        public init() {}
    }

    public enum State: Sendable, Equatable {
        case closed(consecutiveFailures: Int)
        case open(until: ContinuousClock.Instant, duration: Duration)
        case halfOpen(probeInFlight: Bool, lastDuration: Duration)
    }

    public let configuration: Configuration
    public private(set) var state: State = .closed(consecutiveFailures: 0)

    public init(configuration: Configuration = .init()) { self.configuration = configuration }

    /// How many verifications may start now, given `wanted`: all of them when closed, one probe
    /// when half-open, none when open.
    public mutating func admit(_ wanted: Int, now: ContinuousClock.Instant) -> Int {
        if case .open(let until, let duration) = state, now >= until {
            state = .halfOpen(probeInFlight: false, lastDuration: duration)
        }
        switch state {
        case .closed: return wanted
        case .open: return 0
        case .halfOpen(let probeInFlight, let duration):
            guard !probeInFlight, wanted > 0 else { return 0 }
            state = .halfOpen(probeInFlight: true, lastDuration: duration)
            return 1
        }
    }

    /// The admitted probe was not sent (nothing to claim): another may go later.
    public mutating func probeNotSent() {
        if case .halfOpen(true, let duration) = state { state = .halfOpen(probeInFlight: false, lastDuration: duration) }
    }

    /// Apple answered (any JSON answer, valid or not): Apple is up.
    public mutating func recordSuccess() {
        state = .closed(consecutiveFailures: 0)
    }

    /// Apple-side trouble (network error, 5xx, HTML page, timeout, 21005/21199…).
    public mutating func recordFailure(now: ContinuousClock.Instant) {
        switch state {
        case .closed(let failures):
            if failures + 1 >= configuration.failureThreshold {
                state = .open(until: now + configuration.openDuration, duration: configuration.openDuration)
            } else {
                state = .closed(consecutiveFailures: failures + 1)
            }
        case .halfOpen(_, let last):
            let next = min(last * 2, configuration.maxOpenDuration)
            state = .open(until: now + next, duration: next)
        case .open:
            break   // answers of requests sent before it opened
        }
    }

    /// For metrics: 0 closed, 1 half-open, 2 open.
    public var gaugeValue: Int {
        switch state {
        case .closed: 0
        case .halfOpen: 1
        case .open: 2
        }
    }
}
