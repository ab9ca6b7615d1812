import ArgumentParser
import CommandSupport

/// `receiptq-fake-appstore`: a stand-in for Apple's servers — verifyReceipt and the App Store
/// Server API, production and sandbox, signing under a test CA it makes — for tests, demos,
/// benchmarks and backends' own integration tests. Test equipment: an executable of its own, so
/// the product (`receiptq`) carries no signing CA and no fake. Serving is the default subcommand;
/// `mint` prints a receipt the fake understands.
@main
struct ReceiptQFakeAppStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receiptq-fake-appstore",
        abstract: "Serve a fake App Store (verifyReceipt and the App Store Server API, production and sandbox) on loopback, or mint fake receipts and signed transactions. Test equipment, not part of the product.",
        version: ReceiptQueueVersion.current,
        subcommands: [FakeAppStoreServe.self, FakeAppStoreMint.self],
        defaultSubcommand: FakeAppStoreServe.self)

    /// Configuration errors exit 78 (EX_CONFIG), not 1: see `ExitStatus`.
    static func main() async { await runWithExitStatus() }
}
