import Crypto

/// The bearer tokens backends may use, kept only as SHA-256 digests (a leaked configuration does
/// not leak a usable token).
///
/// Promises: a presented token is hashed and compared with every configured digest in constant
/// time (no early exit on the first differing byte or the first match), so response timing says
/// nothing about how close a guess was. Tokens and digests are never logged.
public struct TokenDigests: Sendable, CustomStringConvertible {
    private var digests: [[UInt8]]

    public init() { digests = [] }

    /// Parses hex SHA-256 digests (64 hex digits each), separated by commas, whitespace or new
    /// lines; `#` starts a comment to the end of the line (token files).
    public init(hexList text: String) throws(TokenDigestsError) {
        var digests: [[UInt8]] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            for item in content.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
                guard let digest = TokenDigests.bytes(fromHex: item), digest.count == 32 else {
                    throw TokenDigestsError(index: digests.count + 1)
                }
                digests.append(digest)
            }
        }
        self.digests = digests
    }

    /// The SHA-256 digest of `token` as 64 lowercase hex digits (for configuring a new token).
    public static func hexDigest(of token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The longest bearer token looked at, in bytes: longer ones are refused before hashing, so a
    /// client cannot make the server hash megabytes per request. Generated tokens are 32–64.
    public static let maxTokenBytes = 256

    public var count: Int { digests.count }
    public var isEmpty: Bool { digests.isEmpty }
    public var description: String { "TokenDigests(\(digests.count) tokens)" }

    /// The digests as 64 lowercase hex digits, in order (digests, never tokens: for comparing with
    /// `receiptq.trusted_claim_tokens`).
    public var hexDigests: [String] {
        digests.map { digest in digest.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
    }

    /// The index of the configured token `token` is, or nil. Constant time in the token's content.
    func match(_ token: some StringProtocol) -> Int? {
        guard token.utf8.count <= Self.maxTokenBytes else { return nil }
        let presented = Array(SHA256.hash(data: Array(token.utf8)))
        var found = -1
        for (index, digest) in digests.enumerated() {
            var difference: UInt8 = 0
            for position in 0..<32 { difference |= digest[position] ^ presented[position] }
            // Branch-free select: keeps `found` unless this digest matched.
            let isMatch = Int(difference == 0 ? 1 : 0)
            found = found * (1 - isMatch) + index * isMatch
        }
        return found >= 0 ? found : nil
    }

    /// The positions in this list of the digests `subset` holds, or nil when `subset` holds one
    /// this list does not (a trusted token must also be an accepted one).
    public func indices(of subset: TokenDigests) -> Set<Int>? {
        var found: Set<Int> = []
        for digest in subset.digests {
            guard let index = digests.firstIndex(of: digest) else { return nil }
            found.insert(index)
        }
        return found
    }

    static func bytes(fromHex text: Substring) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
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

/// A token digest in the configuration is not 64 hex digits. Says which one, never its text.
public struct TokenDigestsError: Error, CustomStringConvertible {
    public var index: Int
    public var description: String { "token digest #\(index) is not a hex SHA-256 digest (64 hex digits)" }
}
