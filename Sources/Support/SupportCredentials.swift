import Crypto

/// Who may use the support listener (admin API and console), kept apart from the API's backend
/// tokens: one line per operator, `name role sha256-hex-of-token` (`#` starts a comment). `role` is
/// `admin` (reads and acts, through the `receiptq_support` login) or `readonly` (reads, through the
/// `receiptq_readonly` login). The name is the audit log's actor; tokens are never stored, logged
/// or compared early-exit.
public struct SupportCredentials: Sendable, CustomStringConvertible {
    public enum Role: String, Sendable, Hashable, Codable {
        case admin
        case readonly
    }

    public struct Operator: Sendable, Hashable {
        public var name: String
        public var role: Role
    }

    private struct Entry: Sendable {
        var who: Operator
        var digest: [UInt8]
    }

    private var entries: [Entry]

    public var count: Int { entries.count }
    public var description: String { "SupportCredentials(\(entries.count) operators)" }

    /// - Throws: `SupportCredentialsError` naming the line that is not `name role digest`.
    public init(text: String) throws(SupportCredentialsError) {
        var entries: [Entry] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.isEmpty { continue }
            guard fields.count == 3, let role = Role(rawValue: String(fields[1])), let digest = Self.bytes(hex: fields[2]), digest.count == 32,
                  (1...200).contains(fields[0].count), !entries.contains(where: { $0.who.name == fields[0] })
            else { throw SupportCredentialsError(line: number + 1) }
            entries.append(Entry(who: Operator(name: String(fields[0]), role: role), digest: digest))
        }
        self.entries = entries
    }

    /// The SHA-256 digest of a token as 64 lowercase hex digits (for writing a credentials line).
    public static func hexDigest(of token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// The operator `name` whose token is `token`, or nil. Hashes once and compares every digest
    /// in full (no early exit on a differing byte or a match); tokens over 256 bytes are refused
    /// before hashing.
    public func authenticate(name: some StringProtocol, token: some StringProtocol) -> Operator? {
        guard token.utf8.count <= 256 else { return nil }
        let presented = Array(SHA256.hash(data: Array(token.utf8)))
        var found: Operator?
        for entry in entries {
            var difference: UInt8 = 0
            for index in 0..<32 { difference |= entry.digest[index] ^ presented[index] }
            if difference == 0 && entry.who.name == name { found = entry.who }
        }
        return found
    }

    /// The operator whose token is `token`, whatever their name (bearer tokens name no one).
    public func authenticate(token: some StringProtocol) -> Operator? {
        guard token.utf8.count <= 256 else { return nil }
        let presented = Array(SHA256.hash(data: Array(token.utf8)))
        var found: Operator?
        for entry in entries {
            var difference: UInt8 = 0
            for index in 0..<32 { difference |= entry.digest[index] ^ presented[index] }
            if difference == 0 { found = entry.who }
        }
        return found
    }

    static func bytes(hex: Substring) -> [UInt8]? {
        let utf8 = Array(hex.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

public struct SupportCredentialsError: Error, Sendable, CustomStringConvertible {
    public let line: Int
    public var description: String {
        "support credentials, line \(line): expected `name admin|readonly sha256-hex` (64 hex digits; names unique, 1–200 characters)"
    }
}
