// swift-tools-version:6.0
// ReceiptQueue: asynchronous, lossless verification of Apple In-App Purchase receipts.
// Layers (a lower one never imports a higher one):
//   CLibPQ, CCurl, CMalloc  ←  Postgres, HTTPClient  ←  AppStore, AppleSignedData, Telemetry, ReceiptQueue  ←  AppStoreServerAPI
//   ←  HTTPFront  ←  API, Support, Worker, FakeAppStore
//   ←  CommandSupport  ←  receiptq (the product), receiptq-lab (benchmarks, chaos, demo; not shipped)
// docs/architecture.md names every target (ArchitectureDocTests checks it).
import PackageDescription

let package = Package(
    name: "ReceiptQueue",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "receiptq", targets: ["receiptq"]),
        .executable(name: "receiptq-lab", targets: ["receiptq-lab"]),
        // Test equipment, shipped apart from the product: Apple's stand-in with its test CA.
        .executable(name: "receiptq-fake-appstore", targets: ["receiptq-fake-appstore"]),
    ],
    // Exact versions: a build is the build that was tested (Package.resolved is not committed; this
    // machine's package mirror has its own commit ids). To upgrade one, change its version here,
    // run `./Deploy/dev test` and the benches the change may touch, and note it in docs/CHANGELOG.md.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", exact: "1.8.0"),
        // Spans (already built for Hummingbird): exported by our own OTLP/HTTP JSON exporter (Telemetry).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", exact: "1.7.3"),
        // Apple's signed data (JWS, X.509 chains, App Store Connect JWTs): no hand-written crypto.
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates.git", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", exact: "1.7.4"),
    ],
    targets: [
        // libpq, found through pkg-config (`libpq-dev`).
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // libcurl (`libcurl4-openssl-dev`) behind typed wrappers: its setopt/getinfo are variadic.
        .target(
            name: "CCurl",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        .target(
            name: "HTTPClient",
            dependencies: [
                "CCurl",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "AppStore",
            dependencies: ["HTTPClient"]
        ),
        // OpenTelemetry traces: a swift-distributed-tracing tracer with W3C `traceparent`, and an
        // OTLP/HTTP JSON exporter over the libcurl engine (docs/tracing.md says why not swift-otel).
        .target(
            name: "Telemetry",
            dependencies: [
                "HTTPClient",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Apple's current stack: StoreKit 2 / Server Notifications V2 JWS verified against pinned
        // roots, payload models, ES256 signing and the App Store Connect API token; and the legacy
        // PKCS #7 app receipt verified locally (RSA signatures, hence _CryptoExtras). Pure: no I/O.
        .target(
            name: "AppleSignedData",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // A throwaway Apple-shaped PKI built at run time, for tests and the fake App Store.
        .target(
            name: "AppleTestPKI",
            dependencies: [
                "AppleSignedData",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // The App Store Server API client: Apple's signed transactions, histories, subscription
        // statuses, refunds, notification history, consumption. HTTP through our libcurl engine;
        // never the database (the fleet's rate budget comes in through `ServerAPIRequestGate`).
        .target(
            name: "AppStoreServerAPI",
            dependencies: ["HTTPClient", "AppleSignedData", .product(name: "CoreMetrics", package: "swift-metrics")]
        ),
        .target(
            name: "FakeAppStore",
            dependencies: [
                // The Server API half: its own test CA, JWS signing, notifications sent with our client.
                "HTTPClient",
                "AppleSignedData",
                "AppleTestPKI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "Postgres",
            dependencies: [
                "CLibPQ",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ReceiptQueue",
            dependencies: [
                "Postgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // What the two HTTP fronts (the API and the support listener) share: path parameters read
        // as the client meant them.
        .target(
            name: "HTTPFront",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        // HTTP front: accepts receipts durably (group commit), serves results, orders, grants.
        .target(
            name: "API",
            dependencies: [
                "AppleSignedData",
                "HTTPFront",
                .product(name: "Crypto", package: "swift-crypto"),
                "Postgres",
                "ReceiptQueue",
                "Telemetry",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // Served at GET /v1/openapi.json from the binary itself (`PackageResources.openapi_json`).
            resources: [.embedInCode("openapi.json")]
        ),
        // Customer support and the operator console (issue 27): audited support operations, the
        // support listener (admin API + server-rendered console), off unless `receiptq support serve`.
        .target(
            name: "Support",
            dependencies: [
                "AppStoreServerAPI",
                "AppleSignedData",
                "HTTPFront",
                "Postgres",
                "ReceiptQueue",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // What every executable needs to read its configuration: options, the environment
        // reader, duration arguments, logging and the metrics endpoint.
        .target(
            name: "CommandSupport",
            dependencies: [
                "CMalloc",
                "Postgres",
                "ReceiptQueue",
                "HTTPClient",
                "Telemetry",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                "AppStoreServerAPI",
                "AppleSignedData",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The product: only reads configuration and wires services. It never reaches a fake, a
        // test PKI or test support (Deploy/validate checks the graph and the binary's symbols).
        .executableTarget(
            name: "receiptq",
            dependencies: [
                "CommandSupport",
                "Postgres",
                "ReceiptQueue",
                "API",
                "Support",
                "Worker",
                "HTTPClient",
                "AppStore",
                "AppleSignedData",
                "AppStoreServerAPI",
                "WebhookSignature",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The fake App Store as an executable of its own (test equipment; its own image target).
        .executableTarget(
            name: "receiptq-fake-appstore",
            dependencies: [
                "CommandSupport",
                "FakeAppStore",
                "AppleSignedData",
                "AppleTestPKI",
                "HTTPClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The lab (not shipped): benchmarks, the chaos suite, the demo, test-only commands. It
        // starts the product binary as child processes.
        .executableTarget(
            name: "receiptq-lab",
            dependencies: [
                "CommandSupport",
                "Postgres",
                "ReceiptQueue",
                "API",
                "Worker",
                "HTTPClient",
                "AppStore",
                "FakeAppStore",
                "AppStoreServerAPI",
                "AppleSignedData",
                "AppleTestPKI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                "APITesting",
                "PostgresTesting",
                "ReceiptQueueTesting",
                "OwnershipModel",
                "BenchHistory",
                "WebhookReceiver",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Test equipment: the reference model of ownership (DESIGN: Ownership) with its seeded
        // history generator and shrinker; `receiptq-lab fraud --model` plays its histories against
        // the real system. Pure: no dependency.
        .target(name: "OwnershipModel"),
        // Test equipment: the benchmark history — the yardstick's arithmetic, the records of
        // docs/bench-results.jsonl, the reports' figures, the guards' and comparisons' decisions.
        // Pure: no dependency.
        .target(name: "BenchHistory"),
        // How a webhook delivery is signed and checked (Standard Webhooks, HMAC-SHA256), for the
        // deliverer, `receiptq webhooks` and receivers.
        .target(
            name: "WebhookSignature",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        // The verification worker: claim, verify with Apple, write outcomes and grants; and the
        // webhook deliverer that pushes events to backends.
        .target(
            name: "Worker",
            dependencies: [
                "ReceiptQueue",
                "AppStore",
                "AppleSignedData",
                "AppStoreServerAPI",
                "Postgres",
                "HTTPClient",
                "WebhookSignature",
                "Telemetry",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Harness parts shared by the test targets and the lab: migrated scratch databases on the
        // server that Deploy/dev started, the built `receiptq` and `receiptq-lab` binaries, child
        // processes started without Foundation's Process (see SpawnedProcess). Never a
        // dependency of the product.
        .target(
            name: "ReceiptQueueTesting",
            dependencies: ["Postgres", "PostgresTesting", "ReceiptQueue"]
        ),
        // A backend's webhook endpoint that checks signatures and can be slow, flaky or down, for
        // tests, the demo, the chaos suite and benchmarks.
        .target(
            name: "WebhookReceiver",
            dependencies: ["WebhookSignature", .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        // The API in this process on a free port, for tests and the lab.
        .target(
            name: "APITesting",
            dependencies: ["API", "CommandSupport", "Postgres", "ReceiptQueue", .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        // libFuzzer's driver declared for Swift (see its header for why), and the fuzzer of the app
        // receipt parser and verifier. A plain build compiles `receipt-fuzz` as a replay tool, so it
        // never rots; the fuzzing build adds `-sanitize=fuzzer,address -DFUZZING` (docs/testing.md, Deploy/dev).
        // Not a product: nothing ships it.
        .target(name: "CLibFuzzer"),
        // mallopt for the long-running commands (CommandSupport's MallocArenas).
        .target(name: "CMalloc"),
        .executableTarget(
            name: "receipt-fuzz",
            dependencies: ["CLibFuzzer", "AppleSignedData", "AppleTestPKI"]
        ),
        // A clock tests move by hand, for the pure decision types.
        .target(name: "ClockTesting"),
        // Scratch databases for the libpq layer's tests, with nothing of the domain.
        .target(
            name: "PostgresTesting",
            dependencies: ["Postgres"]
        ),

        // Unit tests: pure logic, no database, no network, no child process (`swift test
        // --filter UnitTests` runs them all in seconds).
        .testTarget(name: "AppStoreUnitTests", dependencies: ["AppStore"]),
        .testTarget(
            name: "FakeAppStoreUnitTests",
            dependencies: ["FakeAppStore", "AppleSignedData", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(name: "AppStoreServerAPIUnitTests", dependencies: ["AppStoreServerAPI"]),
        .testTarget(name: "ReceiptQueueUnitTests", dependencies: ["ReceiptQueue"]),
        .testTarget(name: "OwnershipModelTests", dependencies: ["OwnershipModel"]),
        .testTarget(name: "BenchHistoryUnitTests", dependencies: ["BenchHistory"]),
        .testTarget(name: "TelemetryUnitTests", dependencies: ["Telemetry", "HTTPClient", .product(name: "Tracing", package: "swift-distributed-tracing"),
                                                       .product(name: "Logging", package: "swift-log"),
                                                       .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle")]),
        .testTarget(name: "WorkerUnitTests", dependencies: ["Worker", "ReceiptQueue", "AppStore", "AppStoreServerAPI", "AppleSignedData", "ClockTesting", "HTTPClient",
                                                    "WebhookSignature", "Telemetry", .product(name: "Tracing", package: "swift-distributed-tracing"),
                                                    .product(name: "Logging", package: "swift-log"),
                                                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        .testTarget(name: "APIUnitTests", dependencies: ["API", "HTTPFront", "ReceiptQueue", .product(name: "Hummingbird", package: "hummingbird")]),
        .testTarget(name: "CommandSupportUnitTests", dependencies: ["CommandSupport", "AppleSignedData", "Postgres", .product(name: "Logging", package: "swift-log"),
                                                            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        .testTarget(
            name: "AppleSignedDataUnitTests",
            dependencies: [
                "AppleSignedData",
                "AppleTestPKI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .testTarget(
            name: "AppReceiptUnitTests",
            dependencies: [
                "AppleSignedData",
                "AppleTestPKI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),

        // Integration and system tests: a real PostgreSQL (scratch database per test), the fake
        // App Store over real HTTP, `receiptq` child processes.
        .testTarget(name: "PostgresIntegrationTests", dependencies: ["Postgres", "PostgresTesting"]),
        .testTarget(
            name: "ReceiptQueueIntegrationTests",
            dependencies: ["ReceiptQueue", "Postgres", "PostgresTesting", "ReceiptQueueTesting",
                           .product(name: "Logging", package: "swift-log")],
            // A database of the release before, and its seed (UpgradeTests reads them from the source tree).
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "WorkerIntegrationTests",
            dependencies: ["Worker", "ReceiptQueue", "AppStore", "HTTPClient", "FakeAppStore", "PostgresTesting", "ReceiptQueueTesting",
                           "WebhookReceiver", "WebhookSignature", "AppleSignedData", "AppleTestPKI", "Postgres",
                           .product(name: "X509", package: "swift-certificates"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .testTarget(
            name: "APIIntegrationTests",
            dependencies: ["API", "APITesting", "ReceiptQueue", "Postgres", "PostgresTesting", "ReceiptQueueTesting",
                           "AppleSignedData", "AppleTestPKI", "FakeAppStore",
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "X509", package: "swift-certificates"),
                           .product(name: "Logging", package: "swift-log")]
        ),
        // TLS: a local HTTPS server (python3's ssl module in a child process) with certificates
        // made in the test (swift-certificates), against our libcurl client.
        .testTarget(name: "HTTPClientIntegrationTests", dependencies: [
            "HTTPClient", "AppStore", "FakeAppStore", "ReceiptQueueTesting",
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
        ]),
        .testTarget(name: "CommandLineTests", dependencies: ["AppleSignedData", "CommandSupport", "Postgres", "PostgresTesting", "ReceiptQueue",
                                                         "ReceiptQueueTesting", "WebhookReceiver",
                                                         .product(name: "Crypto", package: "swift-crypto")]),
        // StoreKit 2 intake end to end: the API with the fake's root trusted, the transaction
        // runner and a verifyReceipt worker, the fake's Server API, one ledger.
        .testTarget(
            name: "StoreKitIntegrationTests",
            dependencies: [
                "API", "APITesting", "AppStore", "AppStoreServerAPI", "AppleSignedData", "AppleTestPKI", "FakeAppStore", "HTTPClient",
                "Worker", "ReceiptQueue", "Postgres", "PostgresTesting", "ReceiptQueueTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The Server API client against the fake over real HTTP, the fleet's rate budget in a real
        // PostgreSQL, notifications sent to a receiver in the test.
        .testTarget(
            name: "ServerAPIIntegrationTests",
            dependencies: [
                "AppStoreServerAPI", "AppleSignedData", "AppleTestPKI", "FakeAppStore", "HTTPClient", "Worker",
                "ReceiptQueue", "Postgres", "PostgresTesting", "ReceiptQueueTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Support operations and the support listener against a real PostgreSQL and the fake
        // App Store over HTTP, each write checked for its audit row.
        .testTarget(
            name: "SupportIntegrationTests",
            dependencies: [
                "Support", "AppStoreServerAPI", "AppleSignedData", "FakeAppStore", "HTTPClient", "ReceiptQueue", "Postgres",
                "PostgresTesting", "ReceiptQueueTesting", "Worker",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
    ]
)
