import Support
import Testing

/// The support listener's credentials file, as a table: what parses, what is refused (naming the
/// line), and that a token is good only for its own operator's name.
@Suite("Support credentials: the file's lines and who a token names")
struct SupportCredentialsTests {
    static let digest = SupportCredentials.hexDigest(of: "s3cret-token")

    @Test(arguments: [
        ("alice admin \(digest)", true),
        ("# a comment\n\nalice admin \(digest)  # trailing comment", true),
        ("alice admin", false),
        ("alice root \(digest)", false),
        ("alice admin \(digest.dropLast())", false),
        ("alice admin \(digest)\nalice readonly \(SupportCredentials.hexDigest(of: "other"))", false),
        ("alice admin \(digest) extra", false),
    ])
    func aLineIsNameRoleAndDigest(_ text: String, _ valid: Bool) {
        #expect(((try? SupportCredentials(text: text)) != nil) == valid, "\(text)")
    }

    @Test func aRefusalNamesItsLine() {
        #expect(throws: SupportCredentialsError.self) { try SupportCredentials(text: "alice admin \(Self.digest)\nbob admin nothex") }
        do {
            _ = try SupportCredentials(text: "alice admin \(Self.digest)\nbob admin nothex")
        } catch {
            #expect(error.line == 2)
        }
    }

    @Test func aTokenIsGoodOnlyForItsOwnOperator() throws {
        let credentials = try SupportCredentials(text: """
            alice admin \(Self.digest)
            victor readonly \(SupportCredentials.hexDigest(of: "viewer-token"))
            """)
        #expect(credentials.authenticate(name: "alice", token: "s3cret-token")?.role == .admin)
        #expect(credentials.authenticate(name: "victor", token: "s3cret-token") == nil)
        #expect(credentials.authenticate(name: "victor", token: "viewer-token")?.role == .readonly)
        #expect(credentials.authenticate(token: "viewer-token")?.name == "victor")
        #expect(credentials.authenticate(token: "guess") == nil)
        #expect(credentials.authenticate(token: String(repeating: "x", count: 300)) == nil)
    }
}
