import ArgumentParser
import CommandSupport

/// `receiptq config-reference`: prints docs/configuration-reference.md, generated from the
/// commands' own declarations (`ConfigurationReference`). Hidden: for `./Deploy/dev
/// config-reference` and the test that keeps the committed file current.
struct ConfigReferenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config-reference",
        abstract: "Print the configuration reference (every option, its variable, default and help) as Markdown.",
        shouldDisplay: false)

    func run() throws {
        print(ConfigurationReference.markdown(try CommandCatalog(root: ReceiptQ.self), tool: "receiptq"), terminator: "")
    }
}
