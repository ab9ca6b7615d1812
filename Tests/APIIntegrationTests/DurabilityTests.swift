import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

@Suite("Durability of a 202")
struct DurabilityTests {
    @Test("a 202 means the row exists even when the API process is SIGKILLed right after answering")
    func acceptedSurvivesSIGKILL() async throws {
        let database = try await ScratchDatabase.migrated()
        let child = try ChildProcess(arguments: ["api", "--port", "0", "--admin-port", "0", "--receipt-check", "off", "--database-url", try await database.connectionString(as: .api)],
                                     environment: ["RECEIPTQ_API_TOKENS": TokenDigestsHelper.digest(APIHarness.token),
                                                   "RECEIPTQ_MIGRATIONS": ScratchDatabase.migrationsDirectory().path])
        var port: Int?
        _ = await eventually(timeout: .seconds(20)) {
            port = child.stderr.firstMatch(of: /api listening.*port=(\d+)|port=(\d+).*api listening/).flatMap {
                Int(String($0.output.1 ?? $0.output.2 ?? ""))
            }
            return port != nil
        }
        let bound = try #require(port, "the api did not report its port: \(child.stderr)")
        var ids: [Int64] = []
        for index in 0..<20 {
            let answer = try await HTTPTestClient.send("POST", "http://127.0.0.1:\(bound)/v1/receipts", token: APIHarness.token,
                                                       json: APIHarness.receipt("k\(index)"))
            #expect(answer.status == 202)
            if let id = answer.json["id"] as? Int { ids.append(Int64(id)) }
        }
        child.kill(SIGKILL)  // at once after the last answer
        await child.wait(timeout: .seconds(5))
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let found: Int = try await pool.query("SELECT count(*) AS count FROM receiptq.jobs WHERE id = ANY($1::bigint[])", [ids])[0].decode("count")
        #expect(ids.count == 20)
        #expect(found == 20)
    }
}

import API
enum TokenDigestsHelper {
    static func digest(_ token: String) -> String { TokenDigests.hexDigest(of: token) }
}
