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
            try await api.pool.query("""
                INSERT INTO receiptq.grants (transaction_id, original_transaction_id, purchase_key, job_id, user_id, product_id,
                                             environment, granted_at)
                VALUES ($1, $1, 'purchase:' || $1, 1, 'alice', 'gems', 'Production', now() - ($2 * interval '1 second'))
                """, ["a\(n)", 25 - n])
        }
        for n in 0..<3 {
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
            try await api.pool.query("""
                INSERT INTO receiptq.grants (transaction_id, original_transaction_id, purchase_key, job_id, user_id, product_id,
                                             environment, granted_at)
                VALUES ($1, $1, 'purchase:' || $1, 1, 'carol', 'gems', 'Production', now() - interval '1 hour')
                """, ["c\(n)"])   // the same instant: the purchase key breaks the tie
        }
        let first = try await api.get("/v1/users/carol/grants?limit=20")
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
