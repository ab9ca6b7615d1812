import AppStoreServerAPI
import Foundation
import Logging
import HTTPClient
@testable import ReceiptQueue
@testable import Telemetry
import Testing
import Tracing
@testable import Worker

/// Which spans the worker records for a traced job, under the job's stored traceparent: one per
/// claim, per request to Apple (its environment and status), per verdict write and, when the
/// write finished the job, its event; none at all for a job queued untraced.
@Suite struct JobSpansTests {
    static let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    let exporter = OTLPExporter(
        configuration: .init(endpoint: "http://127.0.0.1:1", resource: .init(serviceName: "test", serviceVersion: "0", instanceID: "here")),
        http: HTTPClient(), logger: Logger(label: "test"))
    var tracer: OTLPTracer { OTLPTracer(exporter: exporter) }
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let end = Date(timeIntervalSince1970: 1_800_000_002)

    func lease(_ id: Int64, kind: JobKind = .receipt, traced: Bool = true) -> JobLease {
        var lease = JobLease(id: id, kind: kind, attempt: 1, receiptData: "", transactionID: "t\(id)", userID: "u", productID: nil,
                             orderID: nil, createdAt: start, lockedUntil: end)
        lease.traceParent = traced ? Self.parent : nil
        return lease
    }

    @Test func aClaimRecordsOneSpanPerTracedJobUnderItsTraceParent() throws {
        JobSpans.claimed([lease(1), lease(2, traced: false)], from: start, to: end, worker: "w", tracer: tracer)
        let span = try #require(exporter.buffered.first)
        #expect(exporter.buffered.count == 1, "the untraced job gets none")
        #expect(span.name == "receiptq.claim" && span.kind == .consumer)
        #expect(span.traceID == "4bf92f3577b34da6a3ce929d0e0e4736" && span.parentSpanID == "00f067aa0ba902b7")
        #expect(span.startNanoseconds == 1_800_000_000_000_000_000 && span.endNanoseconds == 1_800_000_002_000_000_000)
        #expect(span.attributes.get("receiptq.claim_batch") == .int64(2))
    }

    @Test func eachTransactionCheckIsNamedByWhereItWasDecided() throws {
        JobSpans.checked(.notFoundAnywhere, lease: lease(1, kind: .transactionID), from: start, to: end, tracer: tracer)
        JobSpans.checked(.serverAPI(ServerAPIError(.unauthorized, httpStatus: 401)), lease: lease(2, kind: .transactionID),
                         from: start, to: end, tracer: tracer)
        JobSpans.checked(.receiptRefused(reason: "not ours"), lease: lease(3), from: start, to: end, tracer: tracer)
        JobSpans.checked(.notFoundAnywhere, lease: lease(4, kind: .transactionID, traced: false), from: start, to: end, tracer: tracer)
        let spans = exporter.buffered
        #expect(spans.map(\.name) == ["apple.server_api", "apple.server_api", "receiptq.local_check"])
        #expect(spans[0].attributes.get("apple.status") == .int64(404) && spans[0].status == nil)
        #expect(spans[1].attributes.get("apple.status") == .int64(401) && spans[1].status?.code == .error)
        #expect(spans.allSatisfy { $0.parentSpanID == "00f067aa0ba902b7" })
    }

    @Test func aWriteThatFinishedTheJobAlsoRecordsItsEvent() throws {
        let (granted, retried) = (lease(1), lease(2))
        let result = RecordOutcomes.Result(outcomes: [1: .granted, 2: .retry(delayMilliseconds: 1000, error: "HTTP 503")],
                                           unmatchedGrants: 0, lostLease: [])
        JobSpans.written([FinishedAttempt(lease: granted, decision: .result(.release)), FinishedAttempt(lease: retried, decision: .result(.release))],
                         result: result, from: start, to: end, tracer: tracer)
        let spans = exporter.buffered
        #expect(spans.map(\.name) == ["receiptq.verdict.write", "receiptq.event", "receiptq.verdict.write"])
        #expect(spans[1].parentSpanID == spans[0].spanID, "the event hangs under the write that appended it")
        #expect(spans[0].attributes.get("receiptq.outcome") == .string("granted"))
        #expect(spans[2].attributes.get("receiptq.outcome") == .string("retry"))
    }
}
