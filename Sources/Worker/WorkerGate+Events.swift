import AppStore
import ReceiptQueue

/// The gate as the worker drives it: every event the worker sees — a look at the queue, a claim
/// that came back, a chunk's pause over, a request about to go whose era ended, an answer, a job
/// settled on this machine, a verification abandoned, another worker's notice, stop — goes in with
/// the time, and what to do comes out as `Action`s (claim, send, pause, release, record, wait,
/// wake, meter, report), in the manner of postgres-nio's `PoolStateMachine`. `ReceiptWorker` only
/// carries them out: the event under its lock, the actions outside it. So every outcome leaves by
/// `.record` or `.release`, and every slot comes back here.
extension WorkerGate {
    public enum Event: Sendable {
        /// Look at the queue: a wake-up (NOTIFY, a freed slot) or the poll.
        case tick
        /// The claim `.claim(wanted)` asked for came back with `leases` (possibly none).
        case claimed([JobLease], of: Int)
        /// The claim for `wanted` failed: nothing was leased.
        case claimFailed(wanted: Int)
        /// The pause after a chunk of the claim being sent is over.
        case chunkDue
        /// A verification's request was about to go, but the era it was admitted in ended
        /// (`maySend(admittedIn:)` said no): its job goes back unsent.
        case unsent(JobLease)
        /// Apple answered the verification that `attempt` records (its request sent at `sentAt`).
        case answered(VerificationResult, attempt: FinishedAttempt, sentAt: Instant)
        /// A claimed job was settled on this machine without asking Apple (`attempt` records it).
        case decidedLocally(FinishedAttempt)
        /// A verification was cancelled before Apple answered (past the shutdown deadline).
        case abandoned(JobLease)
        /// Another worker's breaker opened.
        case noticeHeard(OutageNotice)
        /// Other workers heard from Apple in the last few seconds (`FleetAnsweredRecently`).
        case fleetAnswered(VerifyReceiptEnvironment)
        /// Graceful shutdown began.
        case stop
    }

    /// What the worker carries out, in order.
    public enum Action: Sendable, Equatable {
        /// Claim up to this many jobs; report `.claimed` or `.claimFailed`.
        case claim(Int)
        /// Start verifying these now; each checks `maySend(admittedIn: era)` just before its
        /// request goes.
        case send([JobLease], era: Int)
        /// Wait this long, then report `.chunkDue`.
        case pause(Duration)
        /// Give these back unsent (their attempt given back), through the writer, and say so.
        case release([JobLease])
        /// Hand this attempt to the writer.
        case record(FinishedAttempt)
        /// Nothing to do: wait for a wake-up, or this long at most.
        case wait(Duration)
        /// Wake the claim loop (a slot is free).
        case wake
        /// Metrics: verifications in flight now.
        case meterInFlight(Int)
        /// Metrics: jobs a claim came back with.
        case meterClaim(Int)
        /// The fleet heard from Apple: slow start was skipped (log it).
        case skippedSlowStart
        /// Log, meter or announce what the gate decided about Apple.
        case report(Report)

        /// Whether the worker waits while carrying it out (claim, pause, wait).
        public var waits: Bool {
            switch self {
            case .claim, .pause, .wait: true
            default: false
            }
        }
    }

    /// Handles `event` at `now`: the steps to carry out, in order; a step that waits (`waits`)
    /// is only ever the last. `pollInterval`: the longest wait for a
    /// wake-up when the queue looked empty.
    public mutating func handle(_ event: Event, now: Instant, pollInterval: Duration) -> [Action] {
        switch event {
        case .tick:
            let wanted = slotsToClaim(now: now)
            return wanted > 0 ? [.claim(wanted)] : stopping ? [] : [.wait(pollInterval)]
        case .claimed(let leases, let wanted):
            let plan = claimed(leases.count, of: wanted, now: now)
            var steps: [Action] = [.meterClaim(leases.count), .meterInFlight(inFlight)]
            waitAfterBatch = leases.count < wanted ? pollInterval : nil   // the queue drained: wait for NOTIFY
            switch plan {
            case .releaseAll:
                steps += release(leases)
            case .chunks(let chunk, let firstPause, let pace):
                unsent = leases[...]
                sendPlan = (chunk, pace)
                steps += nextChunk(pause: firstPause, now: now)
            }
            return steps
        case .claimFailed(let wanted):
            claimFailed(wanted: wanted)
            return []
        case .chunkDue:
            guard !unsent.isEmpty else { return [] }
            guard maySendMore else {
                notSentAfterAdmission(unsent.count)
                return release(Array(unsent))
            }
            return nextChunk(pause: sendPlan.pace, now: now)
        case .unsent(let lease):
            released(1)
            // Admitted, never sent: in slow start the breaker gets its room back.
            notSentAfterAdmission(1)
            return [.record(FinishedAttempt(lease: lease, decision: .result(.release))), .meterInFlight(inFlight), .wake]
        case .answered(let result, let attempt, let sentAt):
            let reports = finished(result, job: attempt.lease.id, sentAt: sentAt, now: now)
            return [.record(attempt), .meterInFlight(inFlight)] + reports.map(Action.report) + [.wake]
        case .decidedLocally(let attempt):
            decidedLocally()
            return [.record(attempt), .meterInFlight(inFlight), .wake]
        case .abandoned(let lease):
            _ = finished(nil, job: lease.id, sentAt: now, now: now)
            return [.record(FinishedAttempt(lease: lease, decision: .result(.release))), .meterInFlight(inFlight), .wake]
        case .noticeHeard(let notice):
            return heard(notice, now: now).map(Action.report)
        case .fleetAnswered(let environment):
            return fleetAnswered(environment) ? [.skippedSlowStart] : []
        case .stop:
            stop()
            return [.wake]
        }
    }

    /// The next chunk of the claim being sent; then a pause, or the wait after a short claim.
    private mutating func nextChunk(pause: Duration, now: Instant) -> [Action] {
        let chunk = unsent.prefix(sendPlan.chunk)
        // An emptied slice still holds the claim's whole buffer (every receipt in it): let it go.
        unsent = unsent.count > chunk.count ? unsent.dropFirst(chunk.count) : []
        if !chunk.isEmpty { sendingChunk(chunk.count, now: now) }
        var steps: [Action] = chunk.isEmpty ? [] : [.send(Array(chunk), era: era)]
        if !unsent.isEmpty {
            steps.append(.pause(pause))
        } else if let wait = waitAfterBatch {
            steps.append(.wait(wait))
        }
        return steps
    }

    /// Gives `leases` back unsent: their slots are free.
    private mutating func release(_ leases: [JobLease]) -> [Action] {
        unsent = []
        released(leases.count)
        var steps: [Action] = leases.isEmpty ? [] : [.release(leases), .meterInFlight(inFlight)]
        if let wait = waitAfterBatch { steps.append(.wait(wait)) }
        return steps
    }
}
