import Foundation
@testable import Support
import Testing

/// How the console writes a value from a view's JSON into a table cell.
@Suite("Console cells: JSON values as an operator reads them")
struct ConsoleTextTests {
    static func cell(_ json: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data("{\"v\": \(json)}".utf8)) as? [String: Any]
        return ConsoleHTML.text(object?["v"])
    }

    @Test(arguments: [("true", "true"), ("false", "false"), ("0", "0"), ("1", "1"), ("42", "42"), ("2.5", "2.5"),
                      ("\"granted\"", "granted"), ("null", ""), ("[1,2]", "[1,2]")])
    func aValueReadsAsItsJSON(json: String, expected: String) throws {
        #expect(try Self.cell(json) == expected)
    }
}
