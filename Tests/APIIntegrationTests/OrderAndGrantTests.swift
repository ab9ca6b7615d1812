import ReceiptQueue
import Foundation
import Testing

@Suite("Orders and grants")
struct OrderAndGrantTests {
    @Test("registering an order is idempotent: 201, then 200; another user or product is 409")
    func registerOrder() async throws {
        let api = try await APIHarness.start()
        let order: [String: Any] = ["order_id": "o-1", "user_id": "alice", "product_id": "gems"]
        let first = try await api.post("/v1/orders", json: order)
        #expect(first.status == 201)
        #expect(first.json["state"] as? String == "pending")
        #expect(try await api.post("/v1/orders", json: order).status == 200)
        let other = try await api.post("/v1/orders", json: ["order_id": "o-1", "user_id": "bob", "product_id": "gems"])
        #expect(other.status == 409)
        #expect(other.problemType == "urn:receiptq:problem:conflicting-order")
        #expect(try await api.post("/v1/orders", json: ["order_id": "o-2"]).status == 400)
        #expect(try await api.count("SELECT count(*) FROM receiptq.orders") == 1)
        await api.stop()
    }

    @Test("a user's grants are listed newest first, a page at a time, other users' never")
    func listGrants() async throws {
        let api = try await APIHarness.start()
        // 25 grants for alice (one a second apart), a few for bob.
        for n in 0..<25 {
            try await api.pool.query("INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ($1, $2, 'Production', 'proof') ON CONFLICT DO NOTHING", ["a\(n)", "alice"])
            try await api.pool.query("""
                INSERT INTO receiptq.grants (transaction_id, original_transaction_id, purchase_key, job_id, user_id, product_id,
                                             environment, granted_at)
                VALUES ($1, $1, 'purchase:' || $1, 1, 'alice', 'gems', 'Production', now() - ($2 * interval '1 second'))
                """, ["a\(n)", 25 - n])
        }
        for n in 0..<3 {
            try await api.pool.query("INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ($1, $2, 'Production', 'proof') ON CONFLICT DO NOTHING", ["b\(n)", "bob"])
            try await api.pool.query("""
                INSERT INTO receiptq.grants (transaction_id, original_transaction_id, purchase_key, job_id, user_id, product_id, environment)
                VALUES ($1, $1, 'purchase:' || $1, 1, 'bob', 'gems', 'Production')
                """, ["b\(n)"])
        }
        var seen: [String] = []
        var path: String? = "/v1/users/alice/grants?limit=10"
        var pages = 0
        while let next = path {
            let answer = try await api.get(next)
            #expect(answer.status == 200)
            let grants = try #require(answer.json["grants"] as? [[String: Any]])
            seen += grants.compactMap { $0["transaction_id"] as? String }
            path = answer.json["next"] as? String
            pages += 1
        }
        #expect(pages == 3)
        #expect(seen == (0..<25).reversed().map { "a\($0)" })   // newest first, no gaps, no repeats
        #expect(try await api.get("/v1/users/nobody/grants").json["grants"] as? [Any] != nil)
        #expect(try await api.get("/v1/users/alice/grants?limit=0").status == 400)
        #expect(try await api.get("/v1/users/alice/grants?cursor=not-a-cursor").status == 400)
        await api.stop()
    }

    @Test("the grants feed pages without gaps while new grants arrive")
    func pagingWhileWriting() async throws {
        let api = try await APIHarness.start()
        for n in 0..<30 {
            try await api.pool.query("INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ($1, $2, 'Production', 'proof') ON CONFLICT DO NOTHING", ["c\(n)", "carol"])
            try await api.pool.query("""
                INSERT INTO receiptq.grants (transaction_id, original_transaction_id, purchase_key, job_id, user_id, product_id,
                                             environment, granted_at)
                VALUES ($1, $1, 'purchase:' || $1, 1, 'carol', 'gems', 'Production', now() - interval '1 hour')
                """, ["c\(n)"])   // the same instant: the purchase key breaks the tie
        }
        let first = try await api.get("/v1/users/carol/grants?limit=20")
        try await api.pool.query("INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ($1, $2, 'Production', 'proof') ON CONFLICT DO NOTHING", ["new", "carol"])
        try await api.pool.query("""
            INSERT INTO receiptq.grants (transaction_id, original_transaction_id, purchase_key, job_id, user_id, product_id, environment)
            VALUES ('new', 'new', 'purchase:new', 1, 'carol', 'gems', 'Production')
            """)
        let second = try await api.get(try #require(first.json["next"] as? String))
        let ids = (try #require(first.json["grants"] as? [[String: Any]]) + (try #require(second.json["grants"] as? [[String: Any]])))
            .compactMap { $0["transaction_id"] as? String }
        #expect(Set(ids) == Set((0..<30).map { "c\($0)" }))
        #expect(ids.count == 30)
        await api.stop()
    }
}

@Suite("GET /v1/events")
struct EventFeedTests {
    @Test("the feed pages from a cursor without gaps or repeats while events are being written")
    func feedPagesWhileWriting() async throws {
        let api = try await APIHarness.start()
        let ids = try await api.queue.enqueue((0..<300).map { NewJob(receiptData: "r\($0)", transactionID: "t\($0)", userID: "u\($0 % 9)") }).map(\.id)
        // Writers append events in many small transactions while a reader pages.
        let writer = Task {
            for chunk in stride(from: 0, to: ids.count, by: 5) {
                let slice = Array(ids[chunk..<min(chunk + 5, ids.count)])
                try await api.pool.transaction { connection in
                    try connection.query("UPDATE receiptq.jobs SET state = 'rejected', finished_at = now() WHERE id = ANY($1)", [slice])
                    try AppendJobEvents.run(jobs: slice, on: connection)
                }
            }
        }
        var seen: [Int] = []
        var after = 0
        let deadline = ContinuousClock.now + .seconds(30)
        while seen.count < 300 && ContinuousClock.now < deadline {
            let page = try await api.get("/v1/events?after=\(after)&limit=17")
            #expect(page.status == 200)
            let events = try #require(page.json["events"] as? [[String: Any]])
            seen += events.compactMap { ($0["data"] as? [String: Any])?["job_id"] as? Int }
            after = try #require(page.json["last_sequence"] as? Int)
        }
        try await writer.value
        #expect(seen.count == 300)
        #expect(Set(seen).count == 300)
        #expect(try await api.get("/v1/events?after=-1").status == 400)
        #expect(try await api.get("/v1/events?limit=0").status == 400)
        await api.stop()
    }
}
