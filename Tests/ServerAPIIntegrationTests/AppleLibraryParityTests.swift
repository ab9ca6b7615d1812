import Foundation
import ReceiptQueueTesting
import Testing

/// docs/apple-parity.md stays true: its tables name every method of Apple's App Store Server
/// Library's client and every creator, verifier and receipt utility it has — read from the
/// installed library (RECEIPTQ_APPLE_LIBRARY_PYTHON, which ./Deploy/dev test sets) — and every
/// client call they claim exists in `AppStoreServerAPI`.
@Suite("Parity with Apple's App Store Server Library")
struct AppleLibraryParityTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The table between `<!-- parity:<name>:begin -->` and its end: first column → second.
    static func table(_ name: String) throws -> [String: String] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/apple-parity.md"), encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- parity:\(name):begin -->"))
        let end = try #require(text.range(of: "<!-- parity:\(name):end -->"))
        var rows: [String: String] = [:]
        for line in text[begin.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            rows[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[2]
        }
        return rows
    }

    /// What the installed library offers, listed by the library's own python.
    static let listing = """
        import inspect, json
        from appstoreserverlibrary.api_client import AppStoreServerAPIClient
        from appstoreserverlibrary import jws_signature_creator, promotional_offer
        from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier
        from appstoreserverlibrary.receipt_utility import ReceiptUtility
        def public(cls): return [n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith('_')]
        creators = [n for module in (jws_signature_creator, promotional_offer) for n, c in inspect.getmembers(module, inspect.isclass)
                    if c.__module__ == module.__name__ and n.endswith('SignatureCreator') and n != 'JWSSignatureCreator']
        print(json.dumps({"api": public(AppStoreServerAPIClient),
                          "other": creators + ['SignedDataVerifier.' + n for n in public(SignedDataVerifier)]
                                   + ['ReceiptUtility.' + n for n in public(ReceiptUtility)]}))
        """

    /// Apple's library's python, when ./Deploy/dev test installed it.
    static let python = ProcessInfo.processInfo.environment["RECEIPTQ_APPLE_LIBRARY_PYTHON"]

    @Test(.enabled(if: python.map { FileManager.default.isExecutableFile(atPath: $0) } ?? false,
                   "RECEIPTQ_APPLE_LIBRARY_PYTHON is not set: ./Deploy/dev test installs app-store-server-library from PyPI"))
    func everyMethodAndCreatorOfTheInstalledLibraryHasARow() async throws {
        let python = try #require(Self.python)
        let run = try await ChildProcess.run(URL(fileURLWithPath: python), arguments: ["-c", Self.listing], timeout: .seconds(60))
        #expect(run.status == 0, "\(run.stderr)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: [String]])
        for name in ["api", "other"] {
            let apple = Set(listed[name] ?? []), documented = Set(try Self.table(name).keys)
            #expect(!apple.isEmpty)
            #expect(apple.subtracting(documented).isEmpty, "Apple's library has \(apple.subtracting(documented).sorted()) that docs/apple-parity.md does not list")
            #expect(documented.subtracting(apple).isEmpty, "docs/apple-parity.md lists \(documented.subtracting(apple).sorted()), which Apple's library no longer has")
        }
        print("apple parity | \(listed["api"]?.count ?? 0) client methods, \(listed["other"]?.count ?? 0) creators, verifiers and utilities: every one listed")
    }

    @Test func everyClientCallTheTableClaimsExists() throws {
        let sources = try FileManager.default.contentsOfDirectory(at: Self.root.appendingPathComponent("Sources/AppStoreServerAPI"),
                                                                  includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }
            .map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        var claimed = 0
        for (method, ours) in try Self.table("api") where !ours.hasPrefix("not yet") && !ours.hasPrefix("left out") {
            for call in ours.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter({ $0.offset % 2 == 1 }).map({ String($0.element) }) {
                let declared = sources.contains("public func \(call)(")
                #expect(declared, "\(method): docs/apple-parity.md names \(call), which AppStoreServerAPIClient lacks")
                claimed += 1
            }
        }
        #expect(claimed >= 17)
    }
}
