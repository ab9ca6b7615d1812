import Foundation
import Testing

/// `SQL/ops/` holds queries ops paste into psql, read-only: every change to a queue is a tested
/// command (`receiptq redrive`, `receiptq release`, …) that agrees with the lifecycle.
@Suite("Ops queries are read-only")
struct OpsQueriesTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../SQL/ops").standardized

    /// The statements of a file without its comments, in upper case.
    static func statements(_ file: URL) throws -> String {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "--").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n").uppercased()
    }

    @Test func noOpsQueryWrites() throws {
        let files = try FileManager.default.contentsOfDirectory(at: Self.folder, includingPropertiesForKeys: nil).filter { $0.pathExtension == "sql" }
        #expect(!files.isEmpty)
        let writes = try Regex(#"\b(UPDATE|INSERT|DELETE|TRUNCATE|ALTER|DROP|CREATE|GRANT|REVOKE|COPY|CALL)\b"#)
        for file in files {
            let text = try Self.statements(file)
            #expect(text.firstMatch(of: writes) == nil, "\(file.lastPathComponent) writes: \(text.firstMatch(of: writes).map { String(text[$0.range]) } ?? "")")
        }
    }
}
