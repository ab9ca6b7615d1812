import Foundation
import HTTPClient
import Logging
import ReceiptQueue
import Support
import Synchronization
import Testing

/// The support listener over real HTTP: bearer tokens for the admin API, HTTP Basic and CSRF
/// tokens for the console, and the read-only operator refused every change.
@Suite("Support listener: admin API and console, authenticated, CSRF-protected, audited")
struct SupportServerTests {
    static let adminToken = "admin-token-0123456789abcdef"
    static let viewerToken = "viewer-token-0123456789abcdef"
    static var credentials: SupportCredentials {
        try! SupportCredentials(text: """
            # name role digest
            alice admin \(SupportCredentials.hexDigest(of: adminToken))
            victor readonly \(SupportCredentials.hexDigest(of: viewerToken))
            """)
    }

    /// The server on a free port for `body`.
    /// The failed-login limiter's clock stands still: on a loaded machine 21 requests can take
    /// longer than the minute the limiter refills in.
    static func withServer(_ fixture: SupportFixture, _ body: (String) async throws -> Void) async throws {
        let port = Mutex(0)
        let frozen = ContinuousClock.now
        let server = SupportServer(configuration: SupportServerConfiguration(port: 0, credentials: credentials), operations: fixture.operations,
                                   logger: Logger(label: "test"), authClock: { frozen }, onListening: { bound in port.withLock { $0 = bound } })
        let task = Task { try await server.run() }
        defer { task.cancel() }
        for _ in 0..<100 where port.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(50)) }
        try await body("http://127.0.0.1:\(port.withLock { $0 })")
    }

    static func basic(_ name: String, _ token: String) -> String { "Basic " + Data("\(name):\(token)".utf8).base64EncodedString() }

    @Test func theAdminAPIReadsWithAnyOperatorAndWritesOnlyWithAnAdmin() async throws {
        try await withSupportFixture { fixture in
            try await Self.withServer(fixture) { base in
                let http = fixture.http
                let anonymous = try await http.send(.get, url: base + "/support/v1/customers/u1", headers: [:], body: [], timeout: .seconds(5))
                #expect(anonymous.status == 401)
                let read = try await http.send(.get, url: base + "/support/v1/customers/u1", headers: ["Authorization": "Bearer " + Self.viewerToken],
                                               body: [], timeout: .seconds(5))
                #expect(read.status == 200)
                let grant = Array(#"{"user_id": "u1", "product_id": "com.example.gems", "reference": "T-9", "product_type": "non_consumable", "why": "goodwill"}"#.utf8)
                let refused = try await http.send(.post, url: base + "/support/v1/grants", headers: ["Authorization": "Bearer " + Self.viewerToken,
                                                                                                    "Content-Type": "application/json"],
                                                  body: grant, timeout: .seconds(5))
                #expect(refused.status == 403)
                let noReason = try await http.send(.post, url: base + "/support/v1/grants", headers: ["Authorization": "Bearer " + Self.adminToken],
                                                   body: Array(#"{"user_id": "u1", "product_id": "p", "reference": "T-8", "product_type": "consumable"}"#.utf8), timeout: .seconds(5))
                #expect(noReason.status == 400)
                let granted = try await http.send(.post, url: base + "/support/v1/grants", headers: ["Authorization": "Bearer " + Self.adminToken],
                                                  body: grant, timeout: .seconds(5))
                #expect(granted.status == 200)
                #expect(try await fixture.count("SELECT count(*) FROM receiptq.support_audit WHERE actor = 'alice' AND action = 'grant.manual' AND why = 'goodwill'") == 1)
                let again = try await http.send(.post, url: base + "/support/v1/grants", headers: ["Authorization": "Bearer " + Self.adminToken],
                                                body: grant, timeout: .seconds(5))
                #expect(again.status == 409)
                let audit = try await http.send(.get, url: base + "/support/v1/audit?subject=user:u1", headers: ["Authorization": "Bearer " + Self.viewerToken],
                                                body: [], timeout: .seconds(5))
                #expect(String(decoding: audit.body, as: UTF8.self).contains("goodwill"))
            }
        }
    }

    @Test func guessingATokenIsHeldToTwentyFailuresAMinuteAndAValidLoginStillPasses() async throws {
        try await withSupportFixture { fixture in
            try await Self.withServer(fixture) { base in
                let http = fixture.http
                let url = base + "/support/v1/customers/u1"
                for _ in 0..<5 {   // no credentials at all is not a guess: never counted
                    #expect(try await http.send(.get, url: url, headers: [:], body: [], timeout: .seconds(5)).status == 401)
                }
                for guess in 0..<20 {
                    let answer = try await http.send(.get, url: url, headers: ["Authorization": "Bearer guess-\(guess)"], body: [], timeout: .seconds(5))
                    #expect(answer.status == 401, "guess \(guess)")
                }
                let limited = try await http.send(.get, url: url, headers: ["Authorization": "Bearer guess-20"], body: [], timeout: .seconds(5))
                #expect(limited.status == 429)
                #expect((Int(limited[header: "Retry-After"] ?? "") ?? 0) >= 1)
                let console = try await http.send(.get, url: base + "/console", headers: ["Authorization": Self.basic("alice", "guess")],
                                                  body: [], timeout: .seconds(5))
                #expect(console.status == 429, "one budget for the admin API and the console")
                let valid = try await http.send(.get, url: url, headers: ["Authorization": "Bearer " + Self.viewerToken], body: [], timeout: .seconds(5))
                #expect(valid.status == 200, "a valid token is never refused for others' failures")
            }
        }
    }

    @Test func theConsoleNeedsALoginAndAFormFromItselfAndRefusesAReadOnlyOperator() async throws {
        try await withSupportFixture { fixture in
            try await Self.withServer(fixture) { base in
                let http = fixture.http
                #expect(try await http.send(.get, url: base + "/console", headers: [:], body: [], timeout: .seconds(5)).status == 401)
                #expect(try await http.send(.get, url: base + "/console", headers: ["Authorization": Self.basic("alice", Self.viewerToken)],
                                            body: [], timeout: .seconds(5)).status == 401, "a token is only good with its own name")
                let page = try await http.send(.get, url: base + "/console/customers/u1", headers: ["Authorization": Self.basic("alice", Self.adminToken)],
                                               body: [], timeout: .seconds(5))
                let html = String(decoding: page.body, as: UTF8.self)
                #expect(page.status == 200 && html.contains("Grant by hand"))
                let csrf = try #require(html.range(of: "name=\"csrf\" value=\"").map { String(html[$0.upperBound...].prefix(64)) })
                let form = { (csrf: String) in Array("csrf=\(csrf)&back=%2Fconsole%2Fcustomers%2Fu1&user_id=u1&product_id=gems&reference=C-1&product_type=consumable&why=goodwill".utf8) }
                let forged = try await http.send(.post, url: base + "/console/actions/grant", headers: ["Authorization": Self.basic("alice", Self.adminToken)],
                                                 body: form(String(repeating: "0", count: 64)), timeout: .seconds(5))
                #expect(forged.status == 403)
                let crossSite = try await http.send(.post, url: base + "/console/actions/grant",
                                                    headers: ["Authorization": Self.basic("alice", Self.adminToken), "Origin": "https://evil.example"],
                                                    body: form(csrf), timeout: .seconds(5))
                #expect(crossSite.status == 403)
                let viewerPage = try await http.send(.get, url: base + "/console/customers/u1", headers: ["Authorization": Self.basic("victor", Self.viewerToken)],
                                                     body: [], timeout: .seconds(5))
                let viewerHTML = String(decoding: viewerPage.body, as: UTF8.self)
                #expect(!viewerHTML.contains("Grant by hand"))
                let viewerPost = try await http.send(.post, url: base + "/console/actions/grant",
                                                     headers: ["Authorization": Self.basic("victor", Self.viewerToken)], body: form(csrf), timeout: .seconds(5))
                #expect(viewerPost.status == 403 && String(decoding: viewerPost.body, as: UTF8.self).contains("read-only"))
                let done = try await http.send(.post, url: base + "/console/actions/grant", headers: ["Authorization": Self.basic("alice", Self.adminToken)],
                                               body: form(csrf), timeout: .seconds(5))
                #expect(done.status == 303)
                #expect(try await fixture.count("SELECT count(*) FROM receiptq.grants WHERE purchase_key = 'manual:C-1' AND manual_by = 'alice'") == 1)
            }
        }
    }

    @Test func aCustomerIdInThePathIsThatCustomerDecodedOnceInTheAPIAndTheConsole() async throws {
        try await withSupportFixture { fixture in
            try await fixture.grant("t-ann", user: "ann smith@example.com")
            try await Self.withServer(fixture) { base in
                let http = fixture.http
                let read = try await http.send(.get, url: base + "/support/v1/customers/ann%20smith%40example.com",
                                               headers: ["Authorization": "Bearer " + Self.viewerToken], body: [], timeout: .seconds(5))
                #expect(read.status == 200 && String(decoding: read.body, as: UTF8.self).contains("purchase:t-ann"),
                        "\(String(decoding: read.body.prefix(300), as: UTF8.self))")
                let page = try await http.send(.get, url: base + "/console/customers/ann%20smith%40example.com",
                                               headers: ["Authorization": Self.basic("victor", Self.viewerToken)], body: [], timeout: .seconds(5))
                let html = String(decoding: page.body, as: UTF8.self)
                #expect(page.status == 200 && html.contains("purchase:t-ann") && html.contains("Customer ann smith@example.com"))
                for bad in ["%zz", "%FF", String(repeating: "a", count: 257)] {
                    let refused = try await http.send(.get, url: base + "/support/v1/customers/" + bad,
                                                      headers: ["Authorization": "Bearer " + Self.viewerToken], body: [], timeout: .seconds(5))
                    #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("user_id"), "\(bad): \(refused.status)")
                }
            }
        }
    }
}
