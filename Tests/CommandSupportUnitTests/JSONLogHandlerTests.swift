@testable import CommandSupport
import Foundation
import Logging
import Synchronization
import Testing

@Suite("JSON logs: one object per line, everything escaped")
struct JSONLogHandlerTests {
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test func aMessageAndMetadataThatCouldBreakALineStayOneParseableObject() throws {
        let lines = Lines()
        var handler = JSONLogHandler(label: "receiptq.test") { lines.append($0) }
        handler.metadata["worker"] = "w\"1"
        let logger = Logger(label: "receiptq.test") { _ in handler }
        let message = "line one\nline \"two\" \\ \u{1}\u{7F} ünïcode \u{2028} end"
        logger.error("\(message)", metadata: ["nested": ["a": "b\r\n", "list": ["x", .stringConvertible(42)]]])

        let line = try #require(lines.all.first)
        #expect(lines.all.count == 1)
        #expect(line.hasSuffix("}\n") && line.dropLast().allSatisfy { $0 != "\n" && $0 != "\r" })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == message)
        #expect(object["level"] as? String == "error")
        #expect(object["label"] as? String == "receiptq.test")
        #expect((object["ts"] as? String)?.hasPrefix("20") == true)
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["worker"] as? String == "w\"1")
        let nested = try #require(metadata["nested"] as? [String: Any])
        #expect(nested["a"] as? String == "b\r\n")
        #expect(nested["list"] as? [String] == ["x", "42"])
    }

    @Test func theKeysComeInAFixedOrderAndMetadataIsLeftOutWhenThereIsNone() throws {
        let lines = Lines()
        let logger = Logger(label: "receiptq.api") { _ in JSONLogHandler(label: "receiptq.api") { lines.append($0) } }
        logger.info("api listening")
        let line = try #require(lines.all.first)
        #expect(line.hasPrefix("{\"ts\":\""))
        #expect(line.hasSuffix(",\"level\":\"info\",\"label\":\"receiptq.api\",\"message\":\"api listening\"}\n"))
    }

    @Test func theFormatIsTextOrJSONAndAnythingElseIsAConfigurationError() throws {
        #expect(try LogSetup.format(EnvironmentReader([:])) == .text)
        #expect(try LogSetup.format(EnvironmentReader(["RECEIPTQ_LOG_FORMAT": "JSON"])) == .json)
        #expect(throws: ConfigurationError.self) { try LogSetup.format(EnvironmentReader(["RECEIPTQ_LOG_FORMAT": "xml"])) }
    }

    @Test func theLevelIsOneOfSwiftLogsAndAnythingElseIsAConfigurationError() throws {
        #expect(try LogSetup.level(EnvironmentReader([:])) == nil, "unset: the command's default")
        #expect(try LogSetup.level(EnvironmentReader(["RECEIPTQ_LOG_LEVEL": "DEBUG"])) == .debug)
        #expect(try LogSetup.level(EnvironmentReader(["RECEIPTQ_LOG_LEVEL": "warning"])) == .warning)
        for bad in ["verbose", "warn", "5", "info "] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try LogSetup.level(EnvironmentReader(["RECEIPTQ_LOG_LEVEL": bad])) }
        }
    }
}
