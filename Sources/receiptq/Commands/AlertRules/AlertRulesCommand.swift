import ArgumentParser
import CommandSupport

/// `receiptq alert-rules`: prints the Prometheus alert rules the binary carries, for the
/// `rule_files:` of a Prometheus or as the Prometheus Operator's PrometheusRule, with each alert's
/// runbook link into the operator's copy of docs/operations.md (`AlertRules`).
struct AlertRulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alert-rules",
        abstract: "Print the Prometheus alert rules, with runbook links into your copy of the runbook.",
        discussion: """
            Set the runbook's address once (--runbook-url or RECEIPTQ_RUNBOOK_URL) and deploy what \
            this prints: receiptq alert-rules --runbook-url https://wiki.example.com/receiptq/operations \
            > /etc/prometheus/rules/receiptq.yaml
            """)

    @Option(help: "The address of your copy of docs/operations.md (the runbook); each alert's runbook_url becomes it plus the alert's anchor. Default: docs/operations.md, relative to the repository.")
    var runbookUrl: String?

    @Option(help: "prometheus (a file for rule_files:) or prometheus-rule (the Prometheus Operator's PrometheusRule). Default: prometheus.")
    var rulesFormat: AlertRules.Format?

    func validate() throws {
        if let runbookUrl, let problem = AlertRules.problem(withRunbookURL: runbookUrl) {
            throw ValidationError("--runbook-url \(problem)")
        }
    }

    func run() throws {
        print(AlertRules.render(rulesFormat ?? .prometheus, runbookURL: runbookUrl), terminator: "")
    }
}

extension AlertRules.Format: ExpressibleByArgument {}
