import CommandSupport
import Testing

@Suite("Reading settings: durations and the environment")
struct SettingsReadingTests {
    @Test(arguments: [("500ms", 500), ("15s", 15_000), ("1.5s", 1_500), ("5m", 300_000), ("72h", 259_200_000), ("30d", 2_592_000_000)])
    func durationsParseInEveryUnit(_ text: String, _ milliseconds: Int64) throws {
        let duration = try #require(Duration(argument: text))
        #expect(duration == .milliseconds(milliseconds))
    }

    @Test(arguments: ["1e300h", "-1s", "15", "s", "nanms", "infs", ""])
    func nonsenseAndHugeDurationsAreRefusedNotCrashed(_ text: String) {
        #expect(Duration(argument: text) == nil)
    }

    @Test(arguments: [(Duration.milliseconds(500), "500ms"), (.seconds(15), "15s"), (.seconds(90), "90s"), (.seconds(300), "5m"),
                      (.seconds(72 * 3600), "72h"), (.seconds(30 * 86_400), "30d"), (.milliseconds(1500), "1500ms")])
    func helpPrintsDefaultsAsValidInput(_ duration: Duration, _ text: String) {
        #expect(duration.argumentText == text)
        #expect(Duration(argument: duration.defaultValueDescription) == duration)
    }

    @Test func aMalformedVariableIsAnErrorNamingItAndEmptyMeansUnset() throws {
        let environment = EnvironmentReader(["RECEIPTQ_A": "12x", "RECEIPTQ_B": "", "RECEIPTQ_C": "7", "RECEIPTQ_D": "maybe",
                                             "RECEIPTQ_E": " a, b ,,c "])
        #expect(throws: ConfigurationError.self) { try environment.int("RECEIPTQ_A", in: 1...10) }
        do {
            _ = try environment.int("RECEIPTQ_A", in: 1...10)
        } catch {
            #expect("\(error)".contains("RECEIPTQ_A"))
        }
        #expect(try environment.int("RECEIPTQ_B", in: 1...10) == nil)
        #expect(try environment.int("RECEIPTQ_C", in: 1...10) == 7)
        #expect(throws: ConfigurationError.self) { try environment.int("RECEIPTQ_C", in: 1...5) }
        #expect(throws: ConfigurationError.self) { try environment.flag("RECEIPTQ_D") }
        #expect(environment.list("RECEIPTQ_E") == ["a", "b", "c"])
        #expect(try environment.duration("RECEIPTQ_MISSING") == nil)
    }
}
