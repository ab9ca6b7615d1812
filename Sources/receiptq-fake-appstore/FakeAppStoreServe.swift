import AppleTestPKI
import ArgumentParser
import CommandSupport
import Crypto
import FakeAppStore
import Foundation
import HTTPClient
import Logging
import ServiceLifecycle

/// `receiptq-fake-appstore [serve] …`: runs until SIGTERM or SIGINT.
struct FakeAppStoreServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve verifyReceipt, the App Store Server API, its admin API and GET /stats on one port.",
        discussion: """
            Prints its URLs on stdout and runs until SIGTERM or SIGINT. Outage kinds: refused closes \
            the listening socket for the window (connects are refused) and closes kept-alive \
            connections on their next request without answering; 503 answers HTTP 503 at once; \
            html200 answers an HTML maintenance page with status 200. Answers: 21000 when the body \
            is not JSON with receipt-data, 21002 when the receipt does not decode (see `mint`), \
            21004 when --shared-secret is set and differs, 21007/21008 for the wrong environment, \
            else status 0 after the latency. GET /stats counts outcomes and valid answers per \
            transaction id.

            App Store Server API: base URLs http://HOST:PORT/production and http://HOST:PORT/sandbox \
            (Apple's paths below them, /inApps/v1/transactions/{id} and so on). Each request needs an \
            ES256 bearer token from a key given with --api-key (or made with --api-key-out), aud \
            appstoreconnect-v1, bid = --bundle-id, iss, an exp at most an hour ahead (iat optional, as \
            Apple's own libraries sign none; when present, exp - iat at most an hour); else 401. Served: the \
            transaction, history, subscription, refund, order, app-transaction, consumption (v1, v2), \
            app-account-token, notification and renewal-extension endpoints. Rate \
            limits per endpoint answer 429 with Retry-After in UNIX milliseconds; the outage windows \
            apply too. Everything is signed by a test CA made at start: its root is at GET \
            /fake/root.pem (and --root-out). Change the purchases with POST /fake/admin/purchases, \
            /renew, /refund, /reverse-refund, /revoke, /family-share, /consumption-request, /test-notification, \
            /faults (JSON bodies); each change POSTs the notification Apple would to \
            --notification-url, retried after 1, 12, 24, 48 and 72 h divided by \
            --notification-retry-compression.
            """)

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one; the URLs are printed).")
    var port = 8_787

    @Option(help: "Latency before each answer, uniform in the range, e.g. 3s-6s, 200ms-1s, 0.")
    var latency = "3s-6s"

    @Option(help: "Outage window relative to start, START-END[:refused|503|html200] (repeatable).")
    var outage: [String] = []

    @Option(help: "Probability of HTTP 503.") var p503 = 0.0
    @Option(help: "Probability of status 21005.") var p21005 = 0.0
    @Option(help: "Probability of status 21199 with is-retryable.") var p21199 = 0.0
    @Option(help: "Probability of never answering.") var pHang = 0.0
    @Option(help: "Probability of truncating a valid answer's JSON.") var pTruncated = 0.0
    @Option(help: "Stop the random faults (--p-*) this long after start, e.g. 2m (default: never).") var randomFaultsEnd: Duration?

    @Option(help: "Shared secret; requests with another password get 21004. Default: $RECEIPTQ_SHARED_SECRET (the worker's variable, or the file named by $RECEIPTQ_SHARED_SECRET_FILE), else the older $FAKE_APPSTORE_SHARED_SECRET, else none.")
    var sharedSecret: String?

    @Option(help: "Server API: the app's bundle id (tokens must carry it as bid).")
    var bundleId = "com.example.app"

    @Option(help: "Server API: the app's App Store id, signed into notifications.")
    var appAppleId: Int64 = 1_234_567_890

    @Option(help: "Server API: a PEM public key or .p8 private key file whose tokens are accepted (repeatable).")
    var apiKey: [String] = []

    @Option(help: "Server API: make a new key, write its .p8 here (mode 0600) and accept its tokens.")
    var apiKeyOut: String?

    @Option(help: "Server API: the key id tokens must name as kid (default: not checked).")
    var apiKeyId: String?

    @Option(help: "Server API: the issuer id tokens must carry as iss (default: not checked).")
    var issuerId: String?

    @Option(help: "Server API: ENDPOINT=REQUESTS_PER_SECOND in production, e.g. get_transaction_info=50 (repeatable; default Apple's table).")
    var apiRateLimit: [String] = []

    @Option(help: "Server API: sandbox rate as a fraction of production.")
    var apiSandboxFactor = 0.1

    @Option(help: "Server API: each endpoint's bucket holds this much time's worth of requests.")
    var apiBurst: Duration = .seconds(1)

    @Option(help: "Server API: latency before each answer, e.g. 0, 50ms-200ms.")
    var apiLatency = "0"

    @Option(help: "Where notifications (App Store Server Notifications V2) are POSTed (default: none sent).")
    var notificationURL: String?

    @Option(help: "Where sandbox notifications go (default: --notification-url).")
    var sandboxNotificationURL: String?

    @Option(help: "Divide Apple's notification retry schedule (1, 12, 24, 48, 72 h) by this, e.g. 3600 makes an hour a second.")
    var notificationRetryCompression = 1.0

    @Flag(help: "Retry sandbox notifications too (Apple retries only in production).")
    var retrySandboxNotifications = false

    @Option(help: "Write the root certificate (PEM) of the fake's signing CA to this file at start.")
    var rootOut: String?

    func validate() throws {
        _ = try makeConfiguration()
    }

    /// The Server API half's configuration from the flags (keys are read by `run`).
    func serverAPIConfiguration(keys: [FakeAPIKey]) throws -> FakeServerAPIConfiguration {
        var limits: [String: Double] = [:]
        for entry in apiRateLimit {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, FakeServerAPIConfiguration.appleRateLimits[parts[0]] != nil,
                  let rate = Double(parts[1]), rate > 0, rate.isFinite
            else {
                let names = FakeServerAPIConfiguration.appleRateLimits.keys.sorted().joined(separator: ", ")
                throw ValidationError("--api-rate-limit \(entry): expected ENDPOINT=N with N > 0 and ENDPOINT one of \(names)")
            }
            limits[parts[0]] = rate
        }
        guard apiSandboxFactor > 0, apiSandboxFactor <= 1 else { throw ValidationError("--api-sandbox-factor must be within (0, 1]") }
        guard apiBurst > .zero else { throw ValidationError("--api-burst must be positive") }
        guard let latency = FakeDurationRange(parsing: apiLatency) else { throw ValidationError("--api-latency: expected e.g. 0 or 50ms-200ms") }
        guard notificationRetryCompression >= 1, notificationRetryCompression.isFinite else {
            throw ValidationError("--notification-retry-compression must be at least 1")
        }
        for url in [notificationURL, sandboxNotificationURL].compactMap({ $0 })
        where !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw ValidationError("notification URLs must be http:// or https://")
        }
        guard !bundleId.isEmpty else { throw ValidationError("--bundle-id must not be empty") }
        return FakeServerAPIConfiguration(
            bundleId: bundleId, appAppleId: appAppleId, acceptedKeys: keys, issuerId: issuerId, rateLimits: limits,
            sandboxFactor: apiSandboxFactor, rateBurst: apiBurst, latency: latency, notificationURL: notificationURL,
            sandboxNotificationURL: sandboxNotificationURL, notificationRetryCompression: notificationRetryCompression,
            retrySandboxNotifications: retrySandboxNotifications)
    }

    /// The keys from --api-key files, and a new one written to --api-key-out.
    func readKeys() throws -> [FakeAPIKey] {
        var keys = try apiKey.map { path in
            guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else { throw ValidationError("--api-key \(path): cannot read the file") }
            guard let key = FakeAPIKey(pem: pem, keyId: apiKeyId) else {
                throw ValidationError("--api-key \(path): not a PEM P-256 public key or .p8 private key")
            }
            return key
        }
        if let apiKeyOut {
            let key = P256.Signing.PrivateKey()
            guard FileManager.default.createFile(atPath: apiKeyOut, contents: Data(key.pemRepresentation.utf8),
                                                 attributes: [.posixPermissions: 0o600]) else {
                throw ValidationError("--api-key-out \(apiKeyOut): cannot write the file")
            }
            keys.append(FakeAPIKey(keyId: apiKeyId, publicKey: key.publicKey))
        }
        return keys
    }

    /// `--shared-secret`'s variable by the product's rule, `RECEIPTQ_SHARED_SECRET` (so one setting
    /// gives a worker and the fake the same secret), then the fake's older `FAKE_APPSTORE_SHARED_SECRET`.
    static func sharedSecretFromEnvironment(_ environment: EnvironmentReader = EnvironmentReader()) throws -> String? {
        try environment.secret("RECEIPTQ_SHARED_SECRET") ?? environment.string("FAKE_APPSTORE_SHARED_SECRET")
    }

    func makeConfiguration() throws -> FakeAppStoreConfiguration {
        guard let range = FakeDurationRange(parsing: latency) else { throw ValidationError("--latency: expected e.g. 3s-6s") }
        let outages = try outage.map { text in
            guard let parsed = FakeOutage(parsing: text) else { throw ValidationError("--outage \(text): expected e.g. 30s-90s:503") }
            return parsed
        }
        for (name, value) in [("p503", p503), ("p21005", p21005), ("p21199", p21199), ("p-hang", pHang), ("p-truncated", pTruncated)]
        where !(0...1).contains(value) {
            throw ValidationError("--\(name) must be within 0…1")
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        return FakeAppStoreConfiguration(
            host: host, port: port, latency: range, outages: outages, p503: p503, p21005: p21005,
            p21199: p21199, pHang: pHang, pTruncated: pTruncated,
            sharedSecret: try sharedSecret ?? Self.sharedSecretFromEnvironment(),
            randomFaultsEnd: randomFaultsEnd, serverAPI: try serverAPIConfiguration(keys: []))
    }

    func run() async throws {
        let logger = LogSetup.bootstrap(label: "receiptq.fake-appstore")
        // Every slow request holds a socket: thousands at once need a high open-files limit.
        FileDescriptorLimit.raise(to: 16_384, logger: logger)
        var configuration = try makeConfiguration()
        configuration.serverAPI.acceptedKeys = try readKeys()
        let server = try await FakeAppStoreServer.start(configuration: configuration)
        if let rootOut {
            guard FileManager.default.createFile(atPath: rootOut, contents: Data(server.serverAPI.rootCertificatePEM.utf8)) else {
                await server.stop()
                throw ValidationError("--root-out \(rootOut): cannot write the file")
            }
        }
        // Written unbuffered on stdout, one per line, so scripts (and `bench http`) can read the URLs.
        let urls = "production: \(server.productionURL)\nsandbox: \(server.sandboxURL)\nstats: \(server.statsURL)\n"
            + "server-api production: \(server.serverAPIProductionURL)\nserver-api sandbox: \(server.serverAPISandboxURL)\n"
            + "root: \(server.rootCertificateURL)\nadmin: \(server.adminURL)\n"
        FileHandle.standardOutput.write(Data(urls.utf8))
        if configuration.serverAPI.acceptedKeys.isEmpty {
            logger.warning("no Server API key configured (--api-key, --api-key-out): every /inApps request gets 401")
        }
        logger.info("fake App Store serving", metadata: ["port": "\(server.port)", "latency": "\(latency)", "outages": "\(outage)"])
        let group = ProcessServiceGroup.make(services: [FakeAppStoreService(server: server)], logger: logger)
        try await group.run()
    }
}

/// Holds the server until graceful shutdown, then closes it (hung connections included).
private struct FakeAppStoreService: Service {
    let server: FakeAppStoreServer

    func run() async throws {
        try? await gracefulShutdown()
        await server.stop()
    }
}
