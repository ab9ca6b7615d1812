import ArgumentParser

/// The one executable. Each subcommand only reads its configuration (flags, then environment),
/// validates it once, and wires services together; the work lives in the library targets.
@main
struct ReceiptQ: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receiptq",
        abstract: "Verifies Apple In-App Purchase receipts asynchronously, without losing a purchase.",
        subcommands: [
            Migrate.self,
            Scheduler.self,
            Stats.self,
            Bench.self,
            ChaosCommand.self,
            ClaimAndHang.self,
            ApiCommand.self,
            FakeAppStoreCommand.self,
            WorkerCommand.self,
            EnqueueCommand.self,
            DemoCommand.self,
        ]
    )
}

/// `receiptq bench …`: throughput figures with a baseline measured in the same run.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmarks that print figures (and --json).",
        subcommands: [
            BenchQueue.self,
            BenchE2E.self,
            BenchAPI.self,
            BenchHTTP.self,
        ]
    )
}
