import CommandSupport
import Foundation
import ReceiptQueueTesting
import Testing

/// Every option of every `receiptq` command has its `RECEIPTQ_*` variable, named by one rule;
/// flags win; a bad value names its variable and exits 78; the options worker and scheduler
/// share are one variable; the committed reference table is what the code declares.
@Suite("Configuration parity: every option has its environment variable")
struct ConfigurationParityTests {
    static let referenceFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/configuration-reference.md")

    /// The built binary's own description of its commands (what `--help` is made from).
    static func catalog() async throws -> CommandCatalog {
        let dump = try await ChildProcess.run(arguments: ["--experimental-dump-help"], timeout: .seconds(20))
        #expect(dump.status == 0, "\(dump.stderr)")
        return try CommandCatalog(json: Data(dump.stdout.utf8))
    }

    @Test func everyOptionOfEveryCommandIsSetByItsVariable() async throws {
        let catalog = try await Self.catalog()
        var checked = 0
        for command in catalog.commands where !command.path.isEmpty {
            for option in command.options where !option.isHidden {
                let flag = try #require(option.name, "\(command.path) has an option with no long name, so no variable")
                let variable = OptionVariable.name(for: flag)
                let value = option.isFlag ? "1" : "v1"
                let expanded = try EnvironmentArguments(arguments: command.path, catalog: catalog,
                                                        environment: EnvironmentReader([variable: value]))
                let expected = option.isFlag ? "--\(flag)" : "--\(flag)=v1"
                if option.isRequired {   // an operand: never from the environment
                    #expect(expanded.arguments == command.path, "receiptq \(command.path.joined(separator: " ")) --\(flag) taken from \(variable)")
                    continue
                }
                #expect(expanded.arguments.contains(expected), "receiptq \(command.path.joined(separator: " ")) --\(flag): \(variable) not applied")
                // A flag given on the command line wins: the variable adds nothing.
                let given = option.isFlag ? ["--\(flag)"] : ["--\(flag)", "cli"]
                let overridden = try EnvironmentArguments(arguments: command.path + given, catalog: catalog,
                                                          environment: EnvironmentReader([variable: value]))
                #expect(overridden.arguments == command.path + given)
                // The rule's name must not be a variable that already means something else.
                #expect(!OptionVariable.alsoRead.values.joined(separator: ", ").split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? "" }
                    .contains(variable), "\(variable) is also read as another setting")
                checked += 1
            }
        }
        #expect(checked > 150, "only \(checked) options found: is the catalog read?")
    }

    @Test func theCommittedReferenceIsWhatTheCodeDeclares() async throws {
        let generated = try await ChildProcess.run(arguments: ["config-reference"], timeout: .seconds(20))
        #expect(generated.status == 0, "\(generated.stderr)")
        if ProcessInfo.processInfo.environment["RECEIPTQ_WRITE_CONFIG_REFERENCE"] == "1" {
            try generated.stdout.write(to: Self.referenceFile, atomically: true, encoding: .utf8)
            return
        }
        let file = (try? String(contentsOf: Self.referenceFile, encoding: .utf8)) ?? ""
        guard file != generated.stdout else { return }
        let (ours, theirs) = (file.split(separator: "\n", omittingEmptySubsequences: false),
                              generated.stdout.split(separator: "\n", omittingEmptySubsequences: false))
        let line = Array(zip(ours, theirs)).firstIndex { $0.0 != $0.1 } ?? min(ours.count, theirs.count)
        Issue.record("""
            docs/configuration-reference.md differs from the code at line \(line + 1): the file says \
            "\(line < ours.count ? ours[line].prefix(160) : "(end)")", the code "\(line < theirs.count ? theirs[line].prefix(160) : "(end)")". \
            Run ./Deploy/dev config-reference and commit the file.
            """)
    }

    @Test func theReferenceListsEveryVisibleOptionWithItsVariable() async throws {
        let catalog = try await Self.catalog()
        let reference = try String(contentsOf: Self.referenceFile, encoding: .utf8)
        for command in catalog.commands where !command.path.isEmpty && !command.isHidden {
            let heading = "## receiptq \(command.path.joined(separator: " "))\n"
            let options = command.options.filter { !$0.isHidden }
            guard !options.isEmpty else { continue }
            let section = try #require(reference.range(of: heading).map { reference[$0.upperBound...] }, "no section for \(heading)")
            let body = section.range(of: "\n## ").map { section[..<$0.lowerBound] } ?? section
            for option in options {
                let flag = try #require(option.name)
                #expect(body.contains("`--\(flag)") && (option.isRequired || body.contains("`\(OptionVariable.name(for: flag))`")),
                        "\(heading.dropLast()): --\(flag) or its variable missing")
            }
        }
    }

    static let unreachable = "postgresql://u:p@127.0.0.1:1/db"

    @Test func aBadValueInAVariableNamesTheVariableAndTheFlagAndExits78() async throws {
        let result = try await ChildProcess.run(arguments: ["scheduler", "--database-url", Self.unreachable],
                                                environment: ["RECEIPTQ_MAX_ATTEMPTS": "many"], timeout: .seconds(20))
        #expect(result.status == 78)
        #expect(result.stderr.contains("RECEIPTQ_MAX_ATTEMPTS") && result.stderr.contains("--max-attempts"), "\(result.stderr)")
        #expect(!result.stderr.trimmingCharacters(in: .whitespacesAndNewlines).contains("\n"), "\(result.stderr)")
        let flag = try await ChildProcess.run(arguments: ["worker", "--database-url", Self.unreachable],
                                              environment: ["RECEIPTQ_REJECT_SANDBOX": "maybe"], timeout: .seconds(20))
        #expect(flag.status == 78)
        #expect(flag.stderr.contains("RECEIPTQ_REJECT_SANDBOX") && flag.stderr.contains("--reject-sandbox"), "\(flag.stderr)")
    }

    @Test func aValueThatCannotWorkIsReportedAsTheVariablesEvenWhenFoundLater() async throws {
        // Parsed fine, refused by WorkerConfiguration.validate() naming the flag: the variable is named too.
        let result = try await ChildProcess.run(arguments: ["worker", "--bundle-ids", "x", "--database-url", Self.unreachable],
                                                environment: ["RECEIPTQ_LEASE": "1s"], timeout: .seconds(20))
        #expect(result.status == 78)
        #expect(result.stderr.contains("RECEIPTQ_LEASE") && result.stderr.contains("--lease"), "\(result.stderr)")
    }

    @Test func theFlagWinsOverItsVariable() async throws {
        // The variable would be refused; the flag given instead is used, and its own error is a usage error.
        let result = try await ChildProcess.run(arguments: ["worker", "--lease", "1e300h"],
                                                environment: ["RECEIPTQ_LEASE": "1s"], timeout: .seconds(20))
        #expect(result.status == 64)
        #expect(result.stderr.contains("--lease") && !result.stderr.contains("RECEIPTQ_LEASE"), "\(result.stderr)")
    }

    @Test(arguments: [["worker", "--bundle-ids", "x"], ["scheduler"]])
    func workerAndSchedulerReadTheOneRetryBudget(command: [String]) async throws {
        let result = try await ChildProcess.run(arguments: command + ["--database-url", Self.unreachable],
                                                environment: ["RECEIPTQ_RETRY_DEADLINE": "0s"], timeout: .seconds(20))
        #expect(result.status == 78)
        #expect(result.stderr.contains("RECEIPTQ_RETRY_DEADLINE (for --retry-deadline)"), "\(result.stderr)")
    }

    @Test func anOlderVariableNameStillWorks() async throws {
        let result = try await ChildProcess.run(arguments: ["worker", "--bundle-ids", "x", "--database-url", Self.unreachable],
                                                environment: ["RECEIPTQ_WORKER_CONCURRENCY": "0"], timeout: .seconds(20))
        #expect(result.status == 78)
        #expect(result.stderr.contains("RECEIPTQ_WORKER_CONCURRENCY") && result.stderr.contains("--concurrency"), "\(result.stderr)")
        #expect(result.stderr.contains("warning: RECEIPTQ_WORKER_CONCURRENCY is deprecated and will be removed; use RECEIPTQ_CONCURRENCY"),
                "an older name is said once, with the rule's: \(result.stderr)")
    }

    @Test func theRulesNameIsNotWarnedAbout() async throws {
        let result = try await ChildProcess.run(arguments: ["worker", "--bundle-ids", "x", "--database-url", Self.unreachable],
                                                environment: ["RECEIPTQ_CONCURRENCY": "0"], timeout: .seconds(20))
        #expect(result.status == 78)
        #expect(!result.stderr.contains("deprecated"), "\(result.stderr)")
    }

    /// The kits, the docs and the examples name each setting once, by the rule: no older variable
    /// name (they still work, warned) is taught anywhere but the page that lists them.
    @Test func theKitsAndDocsUseOnlyTheRulesNames() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let older = OptionVariable.aliases.values.flatMap { $0 }
        let allowed: Set<String> = ["docs/configuration.md", "docs/configuration-reference.md", "docs/CHANGELOG.md"]
        var found: [String] = []
        for folder in ["Deploy", "docs", "README.md"] {
            let url = root.appendingPathComponent(folder)
            let files = (FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? [url])
                .filter { !$0.hasDirectoryPath && !$0.path.contains("/.") && !["png", "jsonl"].contains($0.pathExtension) }
            for file in files {
                let relative = String(file.path.dropFirst(root.path.count + 1))
                guard !allowed.contains(relative), let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                for name in older where text.range(of: name + "\\b", options: .regularExpression) != nil { found.append("\(relative): \(name)") }
            }
        }
        #expect(found.isEmpty, "older names in \(found)")
    }

    @Test func helpWorksWhateverTheEnvironmentHolds() async throws {
        let help = try await ChildProcess.run(arguments: ["worker", "--help"], environment: ["RECEIPTQ_MAX_ATTEMPTS": "many"],
                                              timeout: .seconds(20))
        #expect(help.status == 0, "\(help.stderr)")
        // Grouped by concern, one spelling per option, one default format.
        #expect(help.stdout.contains("RETRY BUDGET (SHARED WITH THE SCHEDULER):"), "\(help.stdout)")
        #expect(help.stdout.contains("CAPACITY AND TIMING:"))
        #expect(help.stdout.contains("--bundle-ids"))
        for hidden in ["--bundle-id ", "--metrics-port", "--metrics-host"] { #expect(!help.stdout.contains(hidden), "\(hidden) shown") }
        #expect(!help.stdout.contains("(default:"), "ArgumentParser's own default format next to ours")
        #expect(!help.stdout.contains("Or $RECEIPTQ"))
    }

    @Test func theOlderBundleIdSpellingStillWorksAndWarns() async throws {
        let result = try await ChildProcess.run(arguments: ["scheduler", "--bundle-id", "com.example", "--retry-deadline", "0s",
                                                            "--database-url", Self.unreachable], timeout: .seconds(20))
        #expect(result.status == 78)   // parsed: refused for the deadline, not for the spelling
        #expect(result.stderr.contains("--bundle-id is deprecated") && result.stderr.contains("--bundle-ids"), "\(result.stderr)")
    }
}
