import ArgumentParser
import CommandSupport

/// The lab: benchmarks, the chaos suite, the demo and test-only commands. Not shipped; it
/// starts the product binary (`receiptq`, found beside it or at `RECEIPTQ_BIN`) as child
/// processes wherever it needs the system as an operator runs it.
@main
struct ReceiptQLab: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receiptq-lab",
        abstract: "Benchmarks, the chaos and fraud suites and the demo for ReceiptQueue (not part of the product).",
        version: ReceiptQueueVersion.current,
        subcommands: [
            Bench.self,
            ChaosCommand.self,
            FraudCommand.self,
            DemoCommand.self,
            WebhookReceiverCommand.self,
            ClaimAndHang.self,
        ]
    )

    /// Configuration errors exit 78 (EX_CONFIG), not 1: see `ExitStatus`.
    static func main() async { await runWithExitStatus() }
}

/// `receiptq-lab bench …`: throughput figures with a baseline measured in the same run.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmarks that print figures (and --json).",
        subcommands: [
            BenchQueue.self,
            BenchE2E.self,
            BenchOutage.self,
            BenchAPI.self,
            BenchHTTP.self,
            BenchWebhooks.self,
            BenchNotifications.self,
            BenchAppStoreAPI.self,
            BenchReceipts.self,
            BenchAppStoreAPICaller.self,
            BenchJWS.self,
            BenchReconcile.self,
            BenchPartitions.self,
            BenchYardstick.self,
            BenchHistoryCommand.self,
            BenchCompare.self,
        ]
    )
}
