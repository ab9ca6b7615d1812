import API
import Foundation
import Postgres
import Testing

@Suite("Errors are application/problem+json with a stable type")
struct ErrorResponseTests {
    static let problem = "urn:receiptq:problem:"

    @Test("400 for malformed JSON, a missing field, a bad field, and non-base64 receipt data")
    func badRequests() async throws {
        let api = try await APIHarness.start()
        let malformed = try await HTTPTestClient.send("POST", api.baseURL + "/v1/receipts", token: APIHarness.token,
                                                      rawBody: Data("{not json".utf8))
        #expect(malformed.status == 400)
        #expect(malformed.problemType == Self.problem + "malformed-json")
        #expect(malformed.contentType == "application/problem+json")

        var missing = APIHarness.receipt("m")
        missing["user_id"] = nil
        let missingAnswer = try await api.post("/v1/receipts", json: missing)
        #expect(missingAnswer.status == 400)
        #expect(missingAnswer.problemType == Self.problem + "invalid-field")
        #expect(missingAnswer.json["field"] as? String == "user_id")

        var long = APIHarness.receipt("l")
        long["transaction_id"] = String(repeating: "9", count: 65)
        #expect(try await api.post("/v1/receipts", json: long).json["field"] as? String == "transaction_id")

        var notBase64 = APIHarness.receipt("n")
        notBase64["receipt_data"] = "abc$%^"
        let answer = try await api.post("/v1/receipts", json: notBase64)
        #expect(answer.status == 400)
        #expect(answer.json["field"] as? String == "receipt_data")

        var nul = APIHarness.receipt("z")
        nul["user_id"] = "a\u{0}b"
        #expect(try await api.post("/v1/receipts", json: nul).status == 400)

        #expect(try await api.get("/v1/receipts/1?wait=31").status == 400)
        #expect(try await api.count("SELECT count(*) FROM receiptq.jobs") == 0)
        await api.stop()
    }

    @Test("401 with a Bearer challenge without a token, with an unknown one, and with one over 256 bytes")
    func unauthorized() async throws {
        // A configured token of 300 bytes: refused all the same, before it is hashed.
        let long = String(repeating: "k", count: 300)
        let api = try await APIHarness.start {
            $0.tokens = try! TokenDigests(hexList: TokenDigests.hexDigest(of: APIHarness.token) + "," + TokenDigests.hexDigest(of: long))
        }
        let none = try await api.post("/v1/receipts", json: APIHarness.receipt("u"), token: nil)
        #expect(none.status == 401)
        #expect(none.problemType == Self.problem + "unauthorized")
        #expect(none.header("WWW-Authenticate") == "Bearer realm=\"receiptq\"")
        let wrong = try await api.get("/v1/receipts/1", token: "wrong")
        #expect(wrong.status == 401)
        #expect(wrong.header("WWW-Authenticate") == "Bearer realm=\"receiptq\", error=\"invalid_token\"")
        #expect(try await api.get("/v1/receipts/1", token: long).status == 401)
        #expect(try await api.get("/v1/receipts/1").status == 404)
        await api.stop()
    }

    @Test("an address that failed authentication too often gets 429 for its failures, and its valid token still passes")
    func failedAuthenticationIsLimitedButNeverRefusesAValidToken() async throws {
        let api = try await APIHarness.start { $0.authFailuresPerMinute = 3 }
        for index in 0..<3 { #expect(try await api.get("/v1/receipts/1", token: "guess-\(index)").status == 401) }
        let limited = try await api.get("/v1/receipts/1", token: "guess-again")
        #expect(limited.status == 429)
        #expect(limited.problemType == Self.problem + "rate-limited")
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(try await api.get("/v1/receipts/1", token: nil).status == 429, "no token from a blocked address: 429")
        // Behind an ingress every backend shares one address: the real token is never locked out.
        for _ in 0..<3 { #expect(try await api.get("/v1/receipts/1").status == 404) }
        let metrics = String(decoding: try await api.admin("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("receiptq_api_auth_failures_total{result=\"unauthorized\"} 3"))
        #expect(metrics.contains("receiptq_api_auth_failures_total{result=\"limited\"} 2"))
        await api.stop()
    }

    @Test("metrics, health and readiness are served on the admin port only")
    func adminEndpointsAreNotOnThePublicPort() async throws {
        let api = try await APIHarness.start()
        for path in ["/metrics", "/healthz", "/readyz"] {
            #expect(try await api.get(path, token: nil).status == 404, "\(path) on the public port")
            #expect(try await api.get(path).status == 404, "\(path) on the public port, with a token")
            #expect(try await api.admin(path).status == 200, "\(path) on the admin port")
        }
        #expect(try await api.get("/v1/receipts/1").status == 404)
        let metrics = String(decoding: try await api.admin("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("# HELP receiptq_api_request_duration_seconds"))
        #expect(metrics.contains("receiptq_api_request_duration_seconds_bucket{route=\"/v1/receipts/{id}\",status=\"404\""))
        #expect(metrics.contains("# HELP process_open_fds"))
        #expect(metrics.contains("# HELP process_resident_memory_bytes"))
        await api.stop()
    }

    @Test("404 for an unknown job, a non-numeric id and an unknown path")
    func notFound() async throws {
        let api = try await APIHarness.start()
        for path in ["/v1/receipts/424242", "/v1/receipts/abc", "/nowhere"] {
            let answer = try await api.get(path)
            #expect(answer.status == 404, "\(path)")
            #expect(answer.problemType == Self.problem + "not-found", "\(path)")
        }
        let wrongMethod = try await api.get("/v1/orders")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.header("Allow") == "POST")
        await api.stop()
    }

    @Test("413 for a receipt over the limit and for a body over the limit, before storing anything")
    func tooLarge() async throws {
        let api = try await APIHarness.start { $0.maxReceiptBytes = 1024; $0.bodySlackBytes = 1024 }
        var big = APIHarness.receipt("big")
        big["receipt_data"] = String(repeating: "QUFB", count: 300)  // 1,200 bytes
        let answer = try await api.post("/v1/receipts", json: big)
        #expect(answer.status == 413)
        #expect(answer.problemType == Self.problem + "too-large")
        var huge = APIHarness.receipt("huge")
        huge["receipt_data"] = String(repeating: "QUFB", count: 100_000)
        #expect(try await api.post("/v1/receipts", json: huge).status == 413)
        #expect(try await api.count("SELECT count(*) FROM receiptq.jobs") == 0)
        await api.stop()
    }

    @Test("415 when the body is not declared as application/json")
    func unsupportedMediaType() async throws {
        let api = try await APIHarness.start()
        let body = try JSONSerialization.data(withJSONObject: APIHarness.receipt("t"))
        let answer = try await HTTPTestClient.send("POST", api.baseURL + "/v1/receipts", token: APIHarness.token,
                                                   rawBody: body, contentType: "text/plain")
        #expect(answer.status == 415)
        #expect(answer.problemType == Self.problem + "unsupported-media-type")
        await api.stop()
    }

    @Test("429 with Retry-After once a token is over its rate")
    func rateLimited() async throws {
        // One token per 1,000 s: no refill can land between the requests, however loaded the machine.
        let api = try await APIHarness.start { $0.rateLimitPerSecond = 0.001; $0.rateLimitBurst = 2 }
        #expect(try await api.get("/v1/receipts/1").status == 404)
        #expect(try await api.get("/v1/receipts/1").status == 404)
        let answer = try await api.get("/v1/receipts/1")
        #expect(answer.status == 429)
        #expect(answer.problemType == Self.problem + "rate-limited")
        #expect(Int(answer.header("Retry-After") ?? "") ?? 0 >= 900)
        await api.stop()
    }

    @Test("503 database-unavailable when PostgreSQL cannot be reached: nothing accepted, readyz fails")
    func databaseUnavailable() async throws {
        let unreachable = try PostgresConfiguration(connectionString: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2",
                                                    applicationName: "api-test")
        let api = try await APIHarness.start(databaseOverride: unreachable)
        let answer = try await api.post("/v1/receipts", json: APIHarness.receipt("d"))
        #expect(answer.status == 503)
        #expect(answer.problemType == Self.problem + "database-unavailable")
        #expect(answer.header("Retry-After") != nil)
        let readiness = try await api.admin("/readyz")
        #expect(readiness.status == 503)
        #expect(readiness.json["reason"] as? String == "the database cannot be reached")
        #expect(try await api.admin("/healthz").status == 200)
        await api.stop()
    }
}
