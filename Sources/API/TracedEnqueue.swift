import ReceiptQueue
import Telemetry
import Tracing

extension JobGroupCommit {
    /// Commits `job` inside a `receiptq.enqueue` span whose traceparent the job keeps (tracing
    /// on), so that the worker's spans for it continue this request's trace (migration 0038).
    func submitTraced(_ job: NewJob, tracing: Bool) async throws -> EnqueuedJob {
        guard tracing else { return try await submit(job) }
        let span = InstrumentationSystem.tracer.startSpan("receiptq.enqueue", ofKind: .producer)
        defer { span.end() }
        var job = job
        job.traceParent = span.context.storedTraceParent
        span.attributes["receiptq.job_kind"] = job.kind.rawValue
        do {
            let result = try await submit(job)
            span.attributes["receiptq.job_id"] = Int(result.id)
            span.attributes["receiptq.created"] = result.created
            return result
        } catch {
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }
}
