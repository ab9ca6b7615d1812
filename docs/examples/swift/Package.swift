// swift-tools-version:6.0
// ReceiptQueue from a Swift backend: Foundation for HTTP, swift-crypto for HMAC-SHA256 (CryptoKit's
// API on Linux; on Apple platforms `import CryptoKit` works the same). `swift run` (docs/quickstart.md).
import PackageDescription

let package = Package(
    name: "ReceiptQueueExample",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
    ],
    targets: [
        .executableTarget(
            name: "ReceiptQueueExample",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
    ]
)
