import Foundation
import Postgres
import ReceiptQueueTesting
import Testing

/// One purchase in one trace (tracing on): the caller's W3C `traceparent` is continued by the
/// API, stored on the job, continued by the worker (its log lines carry the trace id) and sent on
/// with the webhook delivery — across three processes, each under its own database login. The
/// collector here refuses every export (port 1): a collector that is down costs spans, never a
/// purchase. The spans themselves are checked against a real OTLP collector by the test
/// command (Deploy/conformance/otlp_receiver.py).
@Suite("Trace context: one purchase, one trace, from the caller to the webhook", .timeLimit(.minutes(3)))
struct TraceContextTests {
    @Test func theCallersTraceReachesTheWebhook() async throws {
        let stack = try await ObservedStack.start(otlpEndpoint: "http://127.0.0.1:1")
        do {
            let (trace, callerSpan) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7")
            let receipt = try await stack.fixture.mintReceipt(transaction: "t1")
            let answer = try await stack.api("POST", "/v1/receipts", ["receipt_data": receipt, "transaction_id": "t1", "user_id": "u-traced"],
                                             headers: ["traceparent": "00-\(trace)-\(callerSpan)-01"])
            #expect(answer.status == 202)
            let job = try #require(answer.json["id"] as? Int)

            let reached = await eventually(timeout: .seconds(60), every: .milliseconds(200)) {
                stack.receiver.acknowledged.contains { $0.requestID == trace }
            }
            #expect(reached, "the purchase's webhook arrived; worker said: \(stack.worker.stderr.suffix(3000))")
            let delivered = try #require(stack.receiver.acknowledged.first { $0.requestID == trace })
            let sent = try #require(delivered.traceParent, "the delivery carries a traceparent")
            #expect(sent.hasPrefix("00-\(trace)-") && !sent.contains(callerSpan), "a span of the caller's trace, not the caller's own: \(sent)")

            let row = try await stack.fixture.owner.query("SELECT trace_parent FROM receiptq.jobs WHERE id = $1", [job])[0]
            let stored = try #require(try row.decodeIfPresent("trace_parent", as: String.self))
            #expect(stored.hasPrefix("00-\(trace)-") && !stored.contains(callerSpan), "the job keeps the API's enqueue span: \(stored)")
            let event = try await stack.fixture.owner.query("SELECT trace_parent FROM receiptq.events WHERE job_id = $1", [job])
            #expect(try event.first?.decodeIfPresent("trace_parent", as: String.self) == stored, "the event keeps the job's")

            let workerLines = stack.worker.stderr.split(separator: "\n").filter { $0.contains("\"job\":\"\(job)\"") }
            #expect(!workerLines.isEmpty && workerLines.allSatisfy { $0.contains("\"trace_id\":\"\(trace)\"") },
                    "every worker line about the job carries its trace id: \(workerLines.prefix(3))")
            let access = stack.api.stderr.split(separator: "\n").filter { $0.contains("\"route\":\"/v1/receipts\"") }
            #expect(access.contains { $0.contains("\"trace_id\":\"\(trace)\"") }, "the access log line carries it: \(access)")
            let warned = await eventually(timeout: .seconds(10), every: .milliseconds(200)) {
                stack.api.stderr.components(separatedBy: "the OTLP collector did not take a batch of spans").count == 2
            }
            #expect(warned, "a collector that is down is said once (spans are sent every second)")
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}
