/// Builds request paths and query strings. Identifiers come from apps and notifications, so each
/// is percent-encoded as one path segment: a "transaction id" of `../notifications/test` must stay
/// an id, never become another endpoint.
enum ServerAPIPath {
    /// RFC 3986 unreserved characters pass; every other byte is %XX.
    static func segment(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        // "." and ".." are path navigation even when percent-encoding is not needed.
        return out == "." || out == ".." ? out.replacingDots() : out
    }

    static func query(_ items: [(String, String)]) -> String {
        guard !items.isEmpty else { return "" }
        return "?" + items.map { segment($0.0) + "=" + segment($0.1) }.joined(separator: "&")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }

    fileprivate func replacingDots() -> String {
        String(repeating: "%2E", count: count)
    }
}
