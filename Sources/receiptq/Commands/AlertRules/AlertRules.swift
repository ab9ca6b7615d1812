import Foundation

/// The alert rules as an operator deploys them. Deploy/prometheus/receiptq-rules.yaml is their one
/// home (the binary carries it byte for byte: `file`); this renders it as a `rule_files:` file or
/// as the Prometheus Operator's PrometheusRule, with every `runbook_url` pointing at the
/// operator's copy of the runbook — set once, where Prometheus itself has no way to prefix a
/// relative link (external labels would label every series; annotations see no variables).
///
/// Promised: without a runbook URL the output is the shipped file (and the shipped
/// PrometheusRule) byte for byte; with one, only `runbook_url` lines change, each to the URL plus
/// the alert's anchor (the section of docs/operations.md named after the alert).
enum AlertRules {
    enum Format: String, CaseIterable, Sendable {
        /// A file for Prometheus' `rule_files:`.
        case prometheus
        /// A `monitoring.coreos.com/v1` PrometheusRule for the Prometheus Operator.
        case prometheusRule = "prometheus-rule"
    }

    /// Where the shipped file's links point: the runbook, relative to the repository.
    static let shippedRunbook = "docs/operations.md"

    static let linkPrefix = "runbook_url: \(shippedRunbook)#"

    /// Why `url` cannot be the runbook's address, or nil when it can: an absolute http(s) URL
    /// with a host and no fragment (the anchor is each alert's), nothing YAML would need quoted.
    static func problem(withRunbookURL url: String) -> String? {
        guard let parsed = URLComponents(string: url), let scheme = parsed.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let host = parsed.host, !host.isEmpty else {
            return "must be an absolute http(s) URL of your copy of docs/operations.md, such as https://wiki.example.com/receiptq/operations"
        }
        if url.contains("#") { return "must not have a #fragment: each alert adds its own anchor" }
        if url.contains(where: { $0.isWhitespace || $0 == "'" || $0 == "\"" }) { return "must not contain spaces or quotes" }
        return nil
    }

    /// The rules in `format`, linking to `runbookURL` (nil: the shipped relative links).
    static func render(_ format: Format, runbookURL: String?) -> String {
        let rules = linking(file, to: runbookURL)
        switch format {
        case .prometheus: return rules
        case .prometheusRule: return prometheusRule(groupsOf: rules)
        }
    }

    /// `text` with every runbook link's page replaced by `runbookURL`, anchors kept.
    static func linking(_ text: String, to runbookURL: String?) -> String {
        guard let runbookURL else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard let start = line.range(of: linkPrefix) else { return String(line) }
            return line[..<start.lowerBound] + "runbook_url: \(runbookURL)#" + line[start.upperBound...]
        }.joined(separator: "\n")
    }

    static let prometheusRuleHeader = """
        # The alert rules of Deploy/prometheus/receiptq-rules.yaml for the Prometheus Operator, as
        # `receiptq alert-rules --rules-format prometheus-rule` prints them (edit the plain file, run
        # Deploy/embed-rules and print this one again: AlertRulesCommandTests checks both). Add
        # `--runbook-url https://…/operations` for runbook links into your copy of docs/operations.md.
        apiVersion: monitoring.coreos.com/v1
        kind: PrometheusRule
        metadata:
          name: receiptq
          labels:
            app.kubernetes.io/name: receiptq
            role: alert-rules
        spec:

        """

    /// The `groups:` of a rules file (everything from that line on), as a PrometheusRule's spec.
    static func prometheusRule(groupsOf rules: String) -> String {
        let lines = rules.split(separator: "\n", omittingEmptySubsequences: false)
        let groups = lines.drop { !$0.hasPrefix("groups:") }
        return prometheusRuleHeader + groups.map { $0.isEmpty ? "" : "  " + $0 }.joined(separator: "\n")
    }
}
