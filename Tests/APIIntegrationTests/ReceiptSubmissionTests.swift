import Foundation
import ReceiptQueue
import Testing

@Suite("POST /v1/receipts")
struct ReceiptSubmissionTests {
    @Test("202 answers only after the job row is committed, with id, state and status_url")
    func acceptedMeansCommitted() async throws {
        let api = try await APIHarness.start()
        let answer = try await api.post("/v1/receipts", json: APIHarness.receipt("a"))
        #expect(answer.status == 202)
        let id = try #require(answer.json["id"] as? Int)
        #expect(answer.json["state"] as? String == "queued")
        #expect(answer.json["status_url"] as? String == "/v1/receipts/\(id)")
        // A separate connection sees the row: it was committed before the answer.
        #expect(try await api.count("SELECT count(*) FROM receiptq.jobs WHERE id = $1", [Int64(id)]) == 1)
        await api.stop()
    }

    @Test("an identical resubmission answers 200 with the existing job and stores nothing new")
    func identicalResubmissionIsIdempotent() async throws {
        let api = try await APIHarness.start()
        let first = try await api.post("/v1/receipts", json: APIHarness.receipt("b"))
        var wrapped = APIHarness.receipt("b")
        // Line-wrapped base64 (as iOS sends it) is the same receipt.
        let data = wrapped["receipt_data"] as! String
        wrapped["receipt_data"] = String(data.prefix(8)) + "\r\n" + String(data.dropFirst(8))
        let second = try await api.post("/v1/receipts", json: wrapped)
        #expect(first.status == 202)
        #expect(second.status == 200)
        #expect(second.json["id"] as? Int == first.json["id"] as? Int)
        #expect(try await api.count("SELECT count(*) FROM receiptq.jobs") == 1)
        await api.stop()
    }

    @Test("a resubmission with corrected claims is answered 200 with the existing job, never a conflict")
    func resubmissionWithOtherClaims() async throws {
        // The app was told it may finish at the 202: a corrected resubmission must not lose the purchase.
        let api = try await APIHarness.start()
        let first = try await api.post("/v1/receipts", json: APIHarness.receipt("c", user: "alice"))
        var corrected = APIHarness.receipt("c", user: "alice")
        corrected["product_id"] = "another-product"
        let answer = try await api.post("/v1/receipts", json: corrected)
        #expect(answer.status == 200)
        #expect(answer.json["id"] as? Int == first.json["id"] as? Int)
        #expect(answer.json["verdict"] as? String == "pending")
        #expect(try await api.count("SELECT count(*) FROM receiptq.jobs") == 1)
        await api.stop()
    }

    @Test("concurrent submissions are group-committed: fewer statements than requests, each gets its own job")
    func concurrentSubmissionsShareCommits() async throws {
        let api = try await APIHarness.start { $0.groupCommit.maxConcurrentCommits = 1 }
        let ids = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let answer = try await api.post("/v1/receipts", json: APIHarness.receipt("g\(index)"))
                    guard answer.status == 202, let id = answer.json["id"] as? Int else { throw TestFailure("status \(answer.status)") }
                    return id
                }
            }
            return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        #expect(ids.count == 64)
        let metrics = String(decoding: try await api.admin("/metrics").body, as: UTF8.self)
        let commits = try #require(metricValue(metrics, "receiptq_api_enqueue_commits_total"))
        #expect(commits < 64)
        await api.stop()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The value of an unlabelled sample in Prometheus text.
func metricValue(_ text: String, _ name: String) -> Double? {
    text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
}
