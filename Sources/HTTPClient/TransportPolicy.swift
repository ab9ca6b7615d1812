/// Which URLs the engine may fetch, decided once per request before libcurl sees it: HTTPS to
/// anyone, plain HTTP only to this machine (the fake App Store, a test receiver). A shared secret
/// or a signed webhook must never cross a network in clear text, whatever a configuration says.
/// Pure, so its table is unit-tested (`TransportPolicyTests`).
public enum TransportPolicy: Sendable, Equatable {
    /// HTTPS: libcurl may speak `https` only.
    case https
    /// Plain HTTP to a loopback address: libcurl may speak `http` only.
    case loopbackHTTP

    /// The policy for `url`, or nil when the URL may not be fetched (another scheme, or plain
    /// HTTP to a host that is not loopback).
    public static func of(_ url: String) -> TransportPolicy? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        if scheme == "https" { return .https }
        guard let host = host(of: url[url.index(after: colon)...]) else { return nil }
        return isLoopback(host) ? .loopbackHTTP : nil
    }

    /// `localhost`, `*.localhost`, 127.0.0.0/8 and `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The libcurl protocol list for `CURLOPT_PROTOCOLS_STR`.
    var curlProtocols: String {
        switch self {
        case .https: "https"
        case .loopbackHTTP: "http"
        }
    }

    /// The host of `//[user@]host[:port]/…`, brackets kept for IPv6; nil when there is none.
    static func host(of rest: Substring) -> String? {
        guard rest.hasPrefix("//") else { return nil }
        var authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            return String(authority[...close])
        }
        let host = authority.prefix { $0 != ":" }
        return host.isEmpty ? nil : String(host)
    }
}
