import Foundation
import ReceiptQueue
import Telemetry
import Tracing

/// The worker's spans of a job's trace, which the API began (the job row's `trace_parent`,
/// migration 0038). The claim and the verdict write are one statement for a whole batch, so each
/// job's span is recorded after the statement with its start and end; a job without a stored
/// traceparent (tracing off, or queued otherwise) gets none — no tracer call at all. `tracer` is
/// the process's (`InstrumentationSystem`); tests pass their own.
enum JobSpans {
    /// One `receiptq.claim` span per traced job a claim statement returned.
    static func claimed(_ leases: [JobLease], from start: Date, to end: Date, worker: String,
                        tracer: any Tracer = InstrumentationSystem.tracer) {
        for lease in leases where lease.traceParent != nil {
            record("receiptq.claim", parent: lease.traceParent, kind: .consumer, from: start, to: end, tracer: tracer) { attributes in
                attributes["receiptq.job_id"] = Int(lease.id)
                attributes["receiptq.job_kind"] = lease.kind.rawValue
                attributes["receiptq.attempt"] = lease.attempt
                attributes["receiptq.worker"] = worker
                attributes["receiptq.claim_batch"] = leases.count
            }
        }
    }

    /// A request to Apple for `lease` (a verifyReceipt exchange, or one App Store Server API
    /// call): its environment, Apple's status (nil for a timeout or a dropped connection) and how
    /// many requests it took (production, then sandbox after 21007).
    static func appleRequest(_ name: String, lease: JobLease, from start: Date, to end: Date, environment: String,
                             status: Int?, calls: Int = 1, failed: Bool, tracer: any Tracer = InstrumentationSystem.tracer) {
        guard lease.traceParent != nil else { return }
        record(name, parent: lease.traceParent, kind: .client, from: start, to: end, failed: failed, tracer: tracer) { attributes in
            attributes["receiptq.job_id"] = Int(lease.id)
            attributes["apple.environment"] = environment
            if let status { attributes["apple.status"] = status }
            attributes["apple.requests"] = calls
        }
    }

    /// One `receiptq.verdict.write` span per traced attempt of a written batch, and under it a
    /// `receiptq.event` span when the attempt finished its job (the verdict's event, appended in
    /// the same transaction).
    static func written(_ batch: [FinishedAttempt], result: RecordOutcomes.Result, from start: Date, to end: Date,
                        tracer: any Tracer = InstrumentationSystem.tracer) {
        for attempt in batch where attempt.lease.traceParent != nil {
            let outcome = result.outcomes[attempt.lease.id]
            let write = record("receiptq.verdict.write", parent: attempt.lease.traceParent, kind: .internal, from: start, to: end,
                               tracer: tracer) { attributes in
                attributes["receiptq.job_id"] = Int(attempt.lease.id)
                attributes["receiptq.outcome"] = outcome?.metricName ?? (result.lostLease.contains(attempt.lease.id) ? "lost_lease" : "not_finished")
                attributes["receiptq.write_batch"] = batch.count
            }
            if let outcome, outcome.appendsEvent, let write {
                record("receiptq.event", parent: write.description, kind: .producer, from: start, to: end, tracer: tracer) { attributes in
                    attributes["receiptq.job_id"] = Int(attempt.lease.id)
                    attributes["receiptq.outcome"] = outcome.metricName
                }
            }
        }
    }

    /// Records one finished span under `parent`; returns its own traceparent (for a child).
    @discardableResult
    static func record(_ name: String, parent: String?, kind: SpanKind, from start: Date, to end: Date, failed: Bool = false,
                       tracer: any Tracer, _ attributes: (inout SpanAttributes) -> Void) -> TraceParent? {
        let span = tracer.startSpan(name, context: .continuing(parent), ofKind: kind, at: WallClockInstant(start))
        span.updateAttributes(attributes)
        if failed { span.setStatus(SpanStatus(code: .error)) }
        span.end(at: WallClockInstant(max(start, end)))
        return span.context.traceParent
    }
}

extension JobOutcome {
    /// Whether writing this outcome finished the job, and so appended its event (the outcomes
    /// are read after the lifecycle: a retry whose budget ran out is `failed` here).
    var appendsEvent: Bool {
        switch self {
        case .granted, .alreadyGranted, .rejected, .failed, .resubmit, .ownedElsewhere: true
        case .retry, .doubted, .timedOut, .release: false
        }
    }
}

extension JobSpans {
    /// The check of a transaction job: `apple.server_api` when it asked Apple (a lookup, or
    /// verifyReceipt for a receipt this machine could not confirm), else
    /// `receiptq.signed_transaction.verify` (a StoreKit 2 JWS verified on this machine).
    static func checked(_ check: TransactionCheck, lease: JobLease, from start: Date, to end: Date,
                        tracer: any Tracer = InstrumentationSystem.tracer) {
        guard lease.traceParent != nil else { return }
        switch check {
        case .verified(_, let environment) where lease.kind == .signedTransaction:
            record("receiptq.signed_transaction.verify", parent: lease.traceParent, kind: .internal, from: start, to: end,
                   tracer: tracer) { attributes in
                attributes["receiptq.job_id"] = Int(lease.id)
                attributes["apple.environment"] = environment
            }
        case .signatureRefused, .receiptRefused, .notInReceipt:
            record("receiptq.local_check", parent: lease.traceParent, kind: .internal, from: start, to: end,
                   tracer: tracer) { attributes in
                attributes["receiptq.job_id"] = Int(lease.id)
            }
        case .verified(_, let environment):
            appleRequest("apple.server_api", lease: lease, from: start, to: end, environment: environment, status: 200, failed: false, tracer: tracer)
        case .notFoundAnywhere:
            appleRequest("apple.server_api", lease: lease, from: start, to: end, environment: "Production+Sandbox", status: 404, calls: 2,
                         failed: false, tracer: tracer)
        case .verifyReceipt(let result, _):
            appleRequest("apple.verifyReceipt", lease: lease, from: start, to: end, environment: result.environment.rawValue,
                         status: nil, calls: result.calls, failed: false, tracer: tracer)
        case .serverAPI(let error):
            appleRequest("apple.server_api", lease: lease, from: start, to: end, environment: "unknown", status: error.httpStatus,
                         failed: true, tracer: tracer)
        }
    }
}
