// swift-tools-version:6.0
// ReceiptQueue: asynchronous, lossless verification of Apple In-App Purchase receipts.
// Layers (a lower one never imports a higher one):
//   CLibPQ, CCurl  ←  Postgres, HTTPClient  ←  AppStore, ReceiptQueue  ←  API, Worker, FakeAppStore  ←  receiptq
import PackageDescription

let package = Package(
    name: "ReceiptQueue",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "receiptq", targets: ["receiptq"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.65.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.4.0"),
        // Apple's signed data (JWS, X.509 chains, App Store Connect JWTs): no hand-written crypto.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
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
        .target(
            name: "FakeAppStore",
            dependencies: [
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
        // HTTP front: accepts receipts durably (group commit), serves results, orders, grants.
        .target(
            name: "API",
            dependencies: [
                "Postgres",
                "ReceiptQueue",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["openapi.json"]
        ),
        .executableTarget(
            name: "receiptq",
            dependencies: [
                "Postgres",
                "ReceiptQueue",
                "API",
                "Worker",
                "HTTPClient",
                "AppStore",
                "FakeAppStore",
                "ReceiptQueueTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The verification worker: claim, verify with Apple, write outcomes and grants.
        .target(
            name: "Worker",
            dependencies: [
                "ReceiptQueue",
                "AppStore",
                "Postgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "WorkerTests",
            dependencies: ["Worker", "ReceiptQueue", "AppStore", "HTTPClient", "FakeAppStore", "ReceiptQueueTesting"]
        ),
        // Harness parts shared by the test targets and by receiptq's chaos and bench commands:
        // scratch databases on the server that Deploy/dev started, the built `receiptq` binary,
        // child processes started without Foundation's Process (see SpawnedProcess).
        .target(
            name: "ReceiptQueueTesting",
            dependencies: ["Postgres", "ReceiptQueue"]
        ),
        // Apple's current stack: StoreKit 2 / Server Notifications V2 JWS verified against pinned
        // roots, payload models, ES256 signing and the App Store Connect API token. Pure: no I/O.
        .target(
            name: "AppleSignedData",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
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
        .testTarget(
            name: "AppleSignedDataUnitTests",
            dependencies: [
                "AppleSignedData",
                "AppleTestPKI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .testTarget(
            name: "AppStoreTests",
            dependencies: ["AppStore"]
        ),
        .testTarget(
            name: "HTTPClientTests",
            dependencies: ["HTTPClient", "AppStore", "FakeAppStore"]
        ),
        .testTarget(
            name: "FakeAppStoreTests",
            dependencies: ["FakeAppStore"]
        ),
        .testTarget(
            name: "PostgresTests",
            dependencies: ["Postgres", "ReceiptQueueTesting"]
        ),
        .testTarget(
            name: "ReceiptQueueTests",
            dependencies: ["ReceiptQueue", "Postgres", "ReceiptQueueTesting"]
        ),
        .testTarget(
            name: "APITests",
            dependencies: ["API", "ReceiptQueue", "Postgres", "ReceiptQueueTesting"]
        ),
    ]
)
