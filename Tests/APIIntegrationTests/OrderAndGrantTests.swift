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

    @Test("a user's grants are listed oldest first, other users' never")
    func listGrants() async throws {
        let api = try await APIHarness.start()
        for (tx, user) in [("t1", "alice"), ("t2", "bob"), ("t3", "alice")] {
            try await api.pool.query("""
                INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment)
                VALUES ($1, $1, 1, $2, 'gems', 'Production')
                """, [tx, user])
        }
        let answer = try await api.get("/v1/users/alice/grants")
        #expect(answer.status == 200)
        let grants = try #require(answer.json["grants"] as? [[String: Any]])
        #expect(grants.compactMap { $0["transaction_id"] as? String } == ["t1", "t3"])
        #expect(try await api.get("/v1/users/nobody/grants").json["grants"] as? [Any] != nil)
        #expect(try await api.get("/v1/users/alice/grants?limit=0").status == 400)
        await api.stop()
    }
}
