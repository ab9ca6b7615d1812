import Foundation
import ReceiptQueueTesting
import Testing

/// `receiptq alert-rules` is how an operator deploys the alert rules: the shipped files are its
/// output, and a runbook address set once reaches every alert's link and nothing else.
@Suite("Alert rules: the binary prints the shipped rules, with runbook links set once")
struct AlertRulesCommandTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let plainFile = repository.appendingPathComponent("Deploy/prometheus/receiptq-rules.yaml")
    static let operatorFile = repository.appendingPathComponent("Deploy/kubernetes/monitoring/prometheusrule.yaml")

    func rules(_ arguments: [String], environment: [String: String] = [:]) async throws -> String {
        let result = try await ChildProcess.run(arguments: ["alert-rules"] + arguments, environment: environment,
                                                timeout: .seconds(20))
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    func lines(_ text: String) -> [Substring] { text.split(separator: "\n", omittingEmptySubsequences: false) }

    @Test func theShippedRulesFileIsWhatTheBinaryCarries() async throws {
        let shipped = try String(contentsOf: Self.plainFile, encoding: .utf8)
        #expect(try await rules([]) == shipped, "edit Deploy/prometheus/receiptq-rules.yaml, then run Deploy/embed-rules")
    }

    @Test func theShippedPrometheusRuleIsTheBinarysPrintOfTheSameRules() async throws {
        let shipped = try String(contentsOf: Self.operatorFile, encoding: .utf8)
        #expect(try await rules(["--rules-format", "prometheus-rule"]) == shipped,
                "print it again: receiptq alert-rules --rules-format prometheus-rule > Deploy/kubernetes/monitoring/prometheusrule.yaml")
    }

    @Test(arguments: ["prometheus", "prometheus-rule"])
    func aRunbookURLReachesEveryAlertAndChangesNothingElse(format: String) async throws {
        let url = "https://wiki.example.com/receiptq/operations"
        let relative = lines(try await rules(["--rules-format", format]))
        let absolute = lines(try await rules(["--rules-format", format, "--runbook-url", url]))
        #expect(relative.count == absolute.count)
        var linked = 0
        for (before, after) in zip(relative, absolute) where before != after {
            let anchor = try #require(before.split(separator: "runbook_url: docs/operations.md#").last, "changed: \(before)")
            #expect(after.trimmingCharacters(in: .whitespaces) == "runbook_url: \(url)#\(anchor)")
            linked += 1
        }
        let alerts = relative.filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("- alert:") }.count
        #expect(alerts >= 18 && linked == alerts, "\(linked) links for \(alerts) alerts")
        #expect(!absolute.contains { $0.contains("runbook_url: docs/") })
    }

    @Test func theVariableSetsTheRunbookOnceForEveryInvocation() async throws {
        let printed = try await rules([], environment: ["RECEIPTQ_RUNBOOK_URL": "https://runbooks.example.net/rq"])
        #expect(printed.contains("runbook_url: https://runbooks.example.net/rq#receiptqueuejobsfailed"))
    }

    @Test(arguments: ["wiki.example.com/operations", "https://wiki.example.com/ops#alerts", "ftp://wiki.example.com/ops",
                      "https://wiki.example.com/a b"])
    func aRunbookURLThatCannotBeLinkedIsRefusedNamingTheFlag(url: String) async throws {
        let result = try await ChildProcess.run(arguments: ["alert-rules", "--runbook-url", url], timeout: .seconds(20))
        #expect(result.status == 64)
        #expect(result.stderr.contains("--runbook-url"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
