import API
import AppleSignedData
import Crypto
import Foundation
import Postgres
import ReceiptQueueTesting
import Testing

/// POST /v1/users/{user_id}/offer-signatures: what the backend asks for, signed with the In-App
/// Purchase key; StoreKit 2 signatures name the customer's own purchase, and introductory offer
/// eligibility follows the ledger unless the backend decides. When RECEIPTQ_APPLE_LIBRARY_PYTHON
/// names a python with Apple's app-store-server-library (./Deploy/dev test installs it), Apple's
/// library judges every signature made here (Deploy/conformance/apple_offer_signatures.py).
@Suite("Offer signatures: signed for the backend, tied to the customer's own purchases")
struct OfferSignatureTests {
    static let keyPEM = P256.Signing.PrivateKey().pemRepresentation
    static let key = try! AppStoreConnectKey(pem: keyPEM, keyId: "OFFERKEY01")
    static let apps = ["com.example.app", "com.example.other"]

    static func start(issuer: String? = "issuer-1") async throws -> APIHarness {
        try await APIHarness.start { $0.offerSigning = OfferSigning(key: key, issuerId: issuer, bundleIds: apps) }
    }

    /// A user's purchase of `product` in the ledger, as the worker writes it: its owner, then its grant.
    static func own(_ api: APIHarness, user: String, original: String, product: String, transaction: String? = nil) async throws {
        try await api.pool.withConnection { connection in
            _ = try connection.query("""
                INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ($1, $2, 'Production', 'proof')
                ON CONFLICT DO NOTHING
                """, [original, user])
            _ = try connection.query("""
                INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key, product_type)
                VALUES ($1, $2, 0, $3, $4, 'Production', 'test:' || $1, 'auto_renewable')
                """, [transaction ?? original, original, user, product])
        }
    }

    static func catalog(_ api: APIHarness) async throws {
        try await api.pool.withConnection { connection in
            _ = try connection.query("""
                INSERT INTO receiptq.products (product_id, type, subscription_group, group_level) VALUES
                    ('pro.monthly', 'auto_renewable', 'pro', 2), ('pro.yearly', 'auto_renewable', 'pro', 1),
                    ('plus.monthly', 'auto_renewable', 'plus', 1), ('coins', 'consumable', NULL, NULL)
                """)
        }
    }

    /// The claims of a JWS the API signed, its signature checked with the key's public half.
    static func claims(_ jws: String) throws -> [String: Any] {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        func bytes(_ segment: String) throws -> Data {
            var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            text += String(repeating: "=", count: (4 - text.count % 4) % 4)
            return try #require(Data(base64Encoded: text))
        }
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try bytes(parts[2]))
        #expect(key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)), "the signature does not verify")
        return try #require(try JSONSerialization.jsonObject(with: try bytes(parts[1])) as? [String: Any])
    }

    /// Every answer of this suite, for Apple's library to judge.
    final class Cases: @unchecked Sendable {
        private let lock = NSLock()
        private var cases: [[String: Any]] = []
        func add(_ name: String, _ answer: HTTPExchange, request: Any? = nil) {
            lock.withLock { cases.append(["name": name, "answer": answer.json, "request": request ?? NSNull()]) }
        }
        func all() -> [[String: Any]] { lock.withLock { cases } }
    }

    @Test func aStoreKit1PromotionalOfferIsSignedOverApplesTextWithAFreshNonce() async throws {
        let api = try await Self.start()
        let first = try await api.post("/v1/users/ann/offer-signatures",
                                       json: ["type": "promotional_offer", "product_id": "pro.monthly", "offer_id": "winback", "application_username": "Ann-Token"])
        #expect(first.status == 200, "\(first.json)")
        let answer = first.json
        #expect(answer["key_id"] as? String == "OFFERKEY01")
        #expect(answer["bundle_id"] as? String == "com.example.app")
        #expect(answer["application_username"] as? String == "Ann-Token")
        let nonce = try #require((answer["nonce"] as? String).flatMap(UUID.init(uuidString:)))
        let timestamp = try #require(answer["timestamp"] as? Int64)
        #expect(abs(Double(timestamp) / 1000 - Date().timeIntervalSince1970) < 60)
        let text = PromotionalOfferSigner.payload(bundleId: "com.example.app", keyId: "OFFERKEY01", productId: "pro.monthly", offerId: "winback",
                                                  applicationUsername: "Ann-Token", nonce: nonce, timestamp: timestamp)
        let der = try #require((answer["signature"] as? String).flatMap { Data(base64Encoded: $0) })
        #expect(Self.key.publicKey.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: der), for: Data(text.utf8)))
        let second = try await api.post("/v1/users/ann/offer-signatures", json: ["type": "promotional_offer", "product_id": "pro.monthly", "offer_id": "winback"])
        #expect(second.json["nonce"] as? String != answer["nonce"] as? String)
        #expect(second.json["application_username"] as? String == "")
        await api.stop()
    }

    @Test func aStoreKit2PromotionalOfferNamesTheUsersNewestPurchaseOrTheOneGivenButNeverAnotherUsers() async throws {
        let api = try await Self.start()
        let body: [String: Any] = ["type": "promotional_offer_v2", "product_id": "pro.monthly", "offer_id": "winback"]
        // Nothing owned yet: the claim is left out (Apple: optional, recommended).
        let bare = try await api.post("/v1/users/ann/offer-signatures", json: body)
        #expect(bare.status == 200, "\(bare.json)")
        let bareClaims = try Self.claims(try #require(bare.json["signature"] as? String))
        #expect(bareClaims["transactionId"] == nil && bare.json["transaction_id"] == nil)
        #expect(bareClaims["aud"] as? String == "promotional-offer" && bareClaims["iss"] as? String == "issuer-1")
        #expect(bareClaims["offerIdentifier"] as? String == "winback" && bareClaims["productId"] as? String == "pro.monthly")
        try await Self.own(api, user: "ann", original: "1000000000000001", product: "pro.monthly")
        let owned = try await api.post("/v1/users/ann/offer-signatures", json: body)
        #expect(try Self.claims(try #require(owned.json["signature"] as? String))["transactionId"] as? String == "1000000000000001")
        // A renewal's transaction id of her own purchase, or one the ledger never saw (an appTransactionId): as given.
        try await Self.own(api, user: "ann", original: "1000000000000001", product: "pro.monthly", transaction: "1000000000000007")
        for given in ["1000000000000007", "700000000000123"] {
            var named = body
            named["transaction_id"] = given
            let answer = try await api.post("/v1/users/ann/offer-signatures", json: named)
            #expect(answer.status == 200)
            #expect(try Self.claims(try #require(answer.json["signature"] as? String))["transactionId"] as? String == given)
        }
        // Bob's purchase, named by any of its transaction ids: refused.
        try await Self.own(api, user: "bob", original: "2000000000000001", product: "pro.monthly", transaction: "2000000000000002")
        for stolen in ["2000000000000001", "2000000000000002"] {
            var named = body
            named["transaction_id"] = stolen
            let answer = try await api.post("/v1/users/ann/offer-signatures", json: named)
            #expect(answer.status == 403 && answer.problemType == "urn:receiptq:problem:purchase-not-owned", "\(answer.json)")
        }
        // Another of the API's apps, named: its bundle id is signed. One not configured: 400.
        var other = body
        other["bundle_id"] = "com.example.other"
        let forOther = try await api.post("/v1/users/ann/offer-signatures", json: other)
        #expect(try Self.claims(try #require(forOther.json["signature"] as? String))["bid"] as? String == "com.example.other")
        other["bundle_id"] = "com.attacker.app"
        let refused = try await api.post("/v1/users/ann/offer-signatures", json: other)
        #expect(refused.status == 400 && refused.json["field"] as? String == "bundle_id")
        await api.stop()
    }

    @Test func introductoryOfferEligibilityIsTheLedgersUnlessTheBackendDecides() async throws {
        let api = try await Self.start()
        try await Self.catalog(api)
        func ask(_ user: String, _ extra: [String: Any] = [:], product: String = "pro.yearly") async throws -> HTTPExchange {
            try await api.post("/v1/users/\(user)/offer-signatures",
                               json: extra.merging(["type": "introductory_offer_eligibility", "product_id": product]) { a, _ in a })
        }
        // No purchase owned and none named: nothing to tie the signature to.
        let nothing = try await ask("cy")
        #expect(nothing.status == 400 && nothing.json["field"] as? String == "transaction_id", "\(nothing.json)")
        // New to the group (an appTransactionId named): allowed, by the ledger.
        let new = try await ask("cy", ["transaction_id": "900000000000001"])
        #expect(new.status == 200, "\(new.json)")
        #expect(new.json["allow_introductory_offer"] as? Bool == true)
        let eligibility = try #require(new.json["eligibility"] as? [String: Any])
        #expect(NSDictionary(dictionary: eligibility) == NSDictionary(dictionary: ["source": "ledger", "subscription_group": "pro", "subscribed_in_group": false]))
        let newClaims = try Self.claims(try #require(new.json["signature"] as? String))
        #expect(newClaims["allowIntroductoryOffer"] as? Bool == true && newClaims["aud"] as? String == "introductory-offer-eligibility")
        // A subscriber of another level of the same group: not allowed; of another group: allowed.
        try await Self.own(api, user: "dee", original: "3000000000000001", product: "pro.monthly")
        let subscriber = try await ask("dee")
        #expect(subscriber.json["allow_introductory_offer"] as? Bool == false)
        #expect(subscriber.json["transaction_id"] as? String == "3000000000000001")
        #expect(try Self.claims(try #require(subscriber.json["signature"] as? String))["allowIntroductoryOffer"] as? Bool == false)
        let otherGroup = try await ask("dee", product: "plus.monthly")
        #expect(otherGroup.json["allow_introductory_offer"] as? Bool == true)
        // The backend decides: its answer is signed, and said to be its.
        let decided = try await ask("dee", ["allow_introductory_offer": true])
        #expect(decided.json["allow_introductory_offer"] as? Bool == true)
        #expect((decided.json["eligibility"] as? [String: Any])?["source"] as? String == "request")
        // A product the catalog gives no group: the ledger cannot decide, and says which field to send.
        let unknown = try await ask("dee", product: "gems.monthly")
        #expect(unknown.status == 400 && unknown.json["field"] as? String == "allow_introductory_offer", "\(unknown.json)")
        await api.stop()
    }

    @Test func anAdvancedCommerceRequestIsSignedAsGiven() async throws {
        let api = try await Self.start()
        let request: [String: Any] = ["operation": "CREATE_ONE_TIME_CHARGE", "version": "1",
                                      "requestInfo": ["requestReferenceId": "a0a1c2d3-0000-4000-8000-000000000001"]]
        let answer = try await api.post("/v1/users/ann/offer-signatures", json: ["type": "advanced_commerce_in_app", "request": request])
        #expect(answer.status == 200, "\(answer.json)")
        let claims = try Self.claims(try #require(answer.json["signature"] as? String))
        #expect(claims["aud"] as? String == "advanced-commerce-api")
        let signed = try #require((claims["request"] as? String).flatMap { Data(base64Encoded: $0) })
        let decoded = try #require(try JSONSerialization.jsonObject(with: signed) as? [String: Any])
        #expect(NSDictionary(dictionary: decoded) == NSDictionary(dictionary: request))
        for bad: Any in [[:] as [String: Any], "text", 1] {
            let refused = try await api.post("/v1/users/ann/offer-signatures", json: ["type": "advanced_commerce_in_app", "request": bad])
            #expect(refused.status == 400 && refused.json["field"] as? String == "request")
        }
        let missing = try await api.post("/v1/users/ann/offer-signatures", json: ["type": "advanced_commerce_in_app"])
        #expect(missing.status == 400 && missing.json["field"] as? String == "request")
        await api.stop()
    }

    @Test func withoutAnIssuerOnlyStoreKit1IsSignedAndEveryFieldIsChecked() async throws {
        let api = try await Self.start(issuer: nil)
        let storeKit1 = try await api.post("/v1/users/ann/offer-signatures", json: ["type": "promotional_offer", "product_id": "p", "offer_id": "o"])
        #expect(storeKit1.status == 200)
        for type in ["promotional_offer_v2", "introductory_offer_eligibility", "advanced_commerce_in_app"] {
            let answer = try await api.post("/v1/users/ann/offer-signatures", json: ["type": type, "product_id": "p", "offer_id": "o"])
            #expect(answer.status == 501 && answer.problemType == "urn:receiptq:problem:offer-signing-not-configured", "\(type): \(answer.json)")
        }
        let bad: [([String: Any], String)] = [
            ([:], "type"), (["type": "discount"], "type"), (["type": 1], "type"),
            (["type": "promotional_offer", "offer_id": "o"], "product_id"), (["type": "promotional_offer", "product_id": "p"], "offer_id"),
            (["type": "promotional_offer", "product_id": "p", "offer_id": "o\u{1}"], "offer_id"),
            (["type": "promotional_offer", "product_id": "p", "offer_id": "o", "application_username": ""], "application_username"),
        ]
        for (body, field) in bad {
            let answer = try await api.post("/v1/users/ann/offer-signatures", json: body)
            #expect(answer.status == 400 && answer.json["field"] as? String == field, "\(body): \(answer.json)")
        }
        await api.stop()
    }

    /// Apple's library's python, when ./Deploy/dev test installed it.
    static let python = ProcessInfo.processInfo.environment["RECEIPTQ_APPLE_LIBRARY_PYTHON"]

    @Test(.enabled(if: python.map { FileManager.default.isExecutableFile(atPath: $0) } ?? false,
                   "RECEIPTQ_APPLE_LIBRARY_PYTHON is not set: ./Deploy/dev test installs app-store-server-library from PyPI"))
    func applesLibraryAcceptsEverySignatureTheAPIMakes() async throws {
        let python = try #require(Self.python)
        let api = try await Self.start()
        try await Self.catalog(api)
        try await Self.own(api, user: "ann", original: "1000000000000001", product: "pro.monthly")
        let cases = Cases()
        let commerce: [String: Any] = ["operation": "CREATE_ONE_TIME_CHARGE", "version": "1", "requestInfo": ["requestReferenceId": UUID().uuidString]]
        let asks: [(String, [String: Any])] = [
            ("StoreKit 1 promotional offer", ["type": "promotional_offer", "product_id": "pro.monthly", "offer_id": "winback", "application_username": "Ann-Token"]),
            ("StoreKit 1 promotional offer, no username", ["type": "promotional_offer", "product_id": "pro.monthly", "offer_id": "winback"]),
            ("StoreKit 1 promotional offer, second app", ["type": "promotional_offer", "product_id": "pro.monthly", "offer_id": "winback", "bundle_id": "com.example.other"]),
            ("promotional offer v2, the ledger's transaction", ["type": "promotional_offer_v2", "product_id": "pro.monthly", "offer_id": "winback"]),
            ("promotional offer v2, a named transaction", ["type": "promotional_offer_v2", "product_id": "pro.monthly", "offer_id": "winback", "transaction_id": "700000000000123"]),
            ("introductory offer eligibility, the ledger's (no)", ["type": "introductory_offer_eligibility", "product_id": "pro.yearly"]),
            ("introductory offer eligibility, the backend's (yes)", ["type": "introductory_offer_eligibility", "product_id": "pro.yearly", "allow_introductory_offer": true]),
            ("Advanced Commerce in-app request", ["type": "advanced_commerce_in_app", "request": commerce]),
        ]
        for (name, body) in asks {
            let answer = try await api.post("/v1/users/ann/offer-signatures", json: body)
            #expect(answer.status == 200, "\(name): \(answer.json)")
            cases.add(name, answer, request: body["request"])
        }
        await api.stop()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("offer-signatures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cases.json")
        try JSONSerialization.data(withJSONObject: ["key_pem": Self.keyPEM, "key_id": "OFFERKEY01", "issuer_id": "issuer-1",
                                                    "cases": cases.all()]).write(to: file)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Deploy/conformance/apple_offer_signatures.py")
        let run = try await ChildProcess.run(URL(fileURLWithPath: python), arguments: [script.path, file.path], timeout: .seconds(60))
        print(run.stdout.split(separator: "\n").map { "offer signatures | \($0)" }.joined(separator: "\n"))
        #expect(run.status == 0, "Apple's library refused: \(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("\(asks.count) of \(asks.count) offer signatures accepted by Apple's library"))
    }
}
