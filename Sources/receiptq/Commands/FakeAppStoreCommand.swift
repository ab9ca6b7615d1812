import ArgumentParser
import CommandSupport
import FakeAppStore
import Foundation
import HTTPClient
import Logging
import ServiceLifecycle

/// `receiptq fake-appstore`: a stand-in for Apple's verifyReceipt servers, for tests, demos and
/// benchmarks. Serving is the default subcommand; `mint` prints a receipt the fake understands.
struct FakeAppStoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-appstore",
        abstract: "Serve a fake App Store (production and sandbox verifyReceipt) on loopback, or mint a fake receipt.",
        subcommands: [FakeAppStoreServe.self, FakeAppStoreMint.self],
        defaultSubcommand: FakeAppStoreServe.self)
}

/// `receiptq fake-appstore [serve] …`: runs until SIGTERM or SIGINT.
struct FakeAppStoreServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve POST /production/verifyReceipt, POST /sandbox/verifyReceipt and GET /stats on one port.",
        discussion: """
            Prints its URLs on stdout and runs until SIGTERM or SIGINT. Outage kinds: refused closes \
            the listening socket for the window (connects are refused) and closes kept-alive \
            connections on their next request without answering; 503 answers HTTP 503 at once; \
            html200 answers an HTML maintenance page with status 200. Answers: 21000 when the body \
            is not JSON with receipt-data, 21002 when the receipt does not decode (see `mint`), \
            21004 when --shared-secret is set and differs, 21007/21008 for the wrong environment, \
            else status 0 after the latency. GET /stats counts outcomes and valid answers per \
            transaction id.
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

    @Option(help: "Shared secret; requests with another password get 21004. Read from FAKE_APPSTORE_SHARED_SECRET when absent.")
    var sharedSecret: String?

    func validate() throws {
        _ = try makeConfiguration()
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
            sharedSecret: sharedSecret ?? ProcessInfo.processInfo.environment["FAKE_APPSTORE_SHARED_SECRET"],
            randomFaultsEnd: randomFaultsEnd)
    }

    func run() async throws {
        let logger = LogSetup.bootstrap(label: "receiptq.fake-appstore")
        // Every slow request holds a socket: thousands at once need a high open-files limit.
        FileDescriptorLimit.raise(to: 16_384, logger: logger)
        let server = try await FakeAppStoreServer.start(configuration: makeConfiguration())
        // Written unbuffered on stdout, one per line, so scripts (and `bench http`) can read the URLs.
        let urls = "production: \(server.productionURL)\nsandbox: \(server.sandboxURL)\nstats: \(server.statsURL)\n"
        FileHandle.standardOutput.write(Data(urls.utf8))
        logger.info("fake App Store serving", metadata: ["port": "\(server.port)", "latency": "\(latency)", "outages": "\(outage)"])
        let group = ServiceGroup(configuration: .init(
            services: [FakeAppStoreService(server: server)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
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
