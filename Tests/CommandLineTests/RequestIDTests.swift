import Foundation
import Postgres
import ReceiptQueueTesting
import Testing

/// One purchase followed by its request id: the API's answer and access log, the job row, the
/// worker's log lines, the event and the webhook delivery's `X-Request-Id`.
@Suite("Request ids: one purchase followed from the API to the webhook", .timeLimit(.minutes(3)))
struct RequestIDTests {
    @Test func oneReceiptIsFollowedByItsRequestID() async throws {
        let stack = try await ObservedStack.start()
        do {
            let id = "follow-\(UUID().uuidString)"
            let receipt = try await stack.fixture.mintReceipt(transaction: "f1")
            let answer = try await stack.api("POST", "/v1/receipts", ["receipt_data": receipt, "transaction_id": "f1", "user_id": "u-follow"],
                                             headers: ["X-Request-Id": id])
            #expect(answer.status == 202)
            #expect(answer.headers["x-request-id"] == id, "the answer carries the caller's id")
            let job = try #require(answer.json["id"] as? Int)

            let reached = await eventually(timeout: .seconds(60), every: .milliseconds(200)) {
                stack.receiver.acknowledged.contains { $0.requestID == id }
            }
            #expect(reached, "the webhook delivery carries X-Request-Id; worker said: \(stack.worker.stderr.suffix(3000))")
            let row = try await stack.fixture.owner.query("SELECT request_id, state FROM receiptq.jobs WHERE id = $1", [job])[0]
            #expect(try row.decode("request_id", as: String.self) == id)
            #expect(try row.decode("state", as: String.self) == "granted")
            let event = try await stack.fixture.owner.query("SELECT body->>'request_id' AS request_id FROM receiptq.events WHERE job_id = $1", [job])
            #expect(try event.first?.decodeIfPresent("request_id", as: String.self) == id, "the event's body names the request")

            let workerLines = stack.worker.stderr.split(separator: "\n").filter { $0.contains("\"request_id\":\"\(id)\"") }
            #expect(workerLines.contains { $0.contains("Apple answered verifyReceipt") }, "the Apple call's log line names it")
            #expect(workerLines.contains { $0.contains("job attempt recorded") && $0.contains("\"outcome\":\"granted\"") })
            let access = stack.api.stderr.split(separator: "\n").filter { $0.contains("\"request_id\":\"\(id)\"") }
            #expect(access.contains { $0.contains("\"route\":\"/v1/receipts\"") && $0.contains("\"status\":\"202\"") && $0.contains("\"duration_ms\"") },
                    "one JSON access log line: \(access)")
            #expect(!stack.api.stderr.contains(receipt.prefix(40)), "never a body in the access log")

            // A W3C traceparent gives its trace id; a malformed X-Request-Id is replaced, not refused.
            let traced = try await stack.api("GET", "/v1/receipts/\(job)", headers: ["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"])
            #expect(traced.headers["x-request-id"] == "4bf92f3577b34da6a3ce929d0e0e4736")
            let replaced = try await stack.api("GET", "/v1/receipts/\(job)", headers: ["X-Request-Id": "not valid; " + String(repeating: "x", count: 200)])
            #expect(replaced.status == 200)
            #expect(replaced.headers["x-request-id"].map { $0.count == 36 } == true, "a new id: \(String(describing: replaced.headers["x-request-id"]))")
            let unknown = try await stack.api("GET", "/nowhere")
            #expect(unknown.status == 404 && unknown.headers["x-request-id"] != nil, "every answer has one, errors too")
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}
