import CommandSupport
import ArgumentParser

/// The product executable. Each subcommand only reads its configuration (flags, then the
/// environment, then the configuration struct's defaults), validates it once, and wires services
/// together; the work lives in the library targets. Benchmarks, the chaos suite, the demo and
/// test-only commands live in `receiptq-lab`, which is not shipped.
@main
struct ReceiptQ: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receiptq",
        abstract: "Verifies Apple In-App Purchase receipts asynchronously, without losing a purchase.",
        version: ReceiptQueueVersion.current,
        subcommands: [
            Migrate.self,
            SchemaCommand.self,
            ApiCommand.self,
            WorkerCommand.self,
            SchedulerCommand.self,
            Stats.self,
            RedriveCommand.self,
            SupportCommand.self,
            ReleaseCommand.self,
            WebhooksCommand.self,
            EnqueueCommand.self,
            ServerAPICommand.self,
            RolesCommand.self,
            NotificationsCommand.self,
            SyncCommand.self,
            ReconcileCommand.self,
            ProductsCommand.self,
            TrustedClaimsCommand.self,
            AlertRulesCommand.self,
            ConfigReferenceCommand.self,
        ]
    )

    /// Every option can also be set by its `RECEIPTQ_*` variable (`OptionVariable`); configuration
    /// errors exit 78 (EX_CONFIG), not 1: see `ExitStatus`.
    static func main() async { await runWithExitStatus(environmentVariables: true) }
}
