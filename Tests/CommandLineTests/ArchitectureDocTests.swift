import Foundation
import ReceiptQueueTesting
import Testing

/// docs/architecture.md is where a newcomer finds a rule's home: it names every target of
/// Package.swift (in "Swift targets") and every subcommand of `receiptq` (in "Executables and
/// processes"). Adding either without the doc fails here.
@Suite("Architecture: the doc names every target and every subcommand")
struct ArchitectureDocTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The text of one `## ` section of docs/architecture.md, up to the next.
    static func section(_ heading: String) throws -> String {
        let text = try String(contentsOf: repository.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        guard let start = text.range(of: "\n## \(heading)\n") else { return "" }
        let rest = text[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    /// The non-test targets Package.swift declares, by name.
    static func targets() throws -> [String] {
        let manifest = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pattern = try Regex(#"\.(?:target|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)""#)
        return manifest.matches(of: pattern).compactMap { $0.output[1].substring.map(String.init) }
    }

    /// The subcommands `receiptq --help` lists (the lines under SUBCOMMANDS that start a name, up
    /// to the blank line that ends the list).
    static func subcommands(_ help: String) -> [String] {
        guard let start = help.range(of: "SUBCOMMANDS:\n") else { return [] }
        let list = help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
        return list.compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first else { return nil }
            return String(name)
        }
    }

    @Test func everyTargetOfThePackageIsInTheTargetsSection() throws {
        let targets = try Self.targets()
        #expect(targets.count >= 25, "Package.swift read: \(targets)")
        let section = try Self.section("Swift targets")
        let missing = targets.filter { !section.contains("`\($0)`") }
        #expect(missing.isEmpty, "docs/architecture.md, \"Swift targets\", does not name: \(missing.joined(separator: ", "))")
    }

    @Test func everySubcommandOfReceiptqIsInTheProcessesSection() async throws {
        let help = try await ChildProcess.run(arguments: ["--help"], timeout: .seconds(20))
        #expect(help.status == 0, "\(help.stderr)")
        let subcommands = Self.subcommands(help.stdout)
        #expect(subcommands.count >= 15 && subcommands.contains("migrate") && subcommands.contains("worker"), "\(help.stdout)")
        let section = try Self.section("Executables and processes")
        let missing = subcommands.filter { !section.contains("`\($0)`") }
        #expect(missing.isEmpty, "docs/architecture.md, \"Executables and processes\", does not name: \(missing.joined(separator: ", "))")
    }

    @Test func theCheckFindsWhatIsMissing() {
        // The reader of --help, on a listing with one subcommand the doc would lack.
        let help = "USAGE: receiptq <subcommand>\n\nSUBCOMMANDS:\n  migrate                 Apply the schema.\n  frobnicate              New,\n                          undocumented.\n\n  See 'receiptq help <subcommand>' for detailed help.\n"
        #expect(Self.subcommands(help) == ["migrate", "frobnicate"])
    }
}
