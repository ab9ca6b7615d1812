import AppleSignedData
import HTTPClient

/// The OCSP transport for `--online-revocation-checks`: POSTs through our libcurl client (TLS
/// verification on; Apple's responders are plain HTTP, as OCSP usually is). One client for the
/// process, made on first use, so a process with the checks off opens nothing.
enum OnlineRevocation {
    private static let http = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 8, defaultTimeout: .seconds(10)))

    struct ResponderFailed: Error, CustomStringConvertible {
        var status: Int
        var description: String { "OCSP responder answered HTTP \(status)" }
    }

    static var requester: OCSPQueryRequester {
        OCSPQueryRequester { uri, request in
            let response = try await http.post(url: uri, headers: ["Content-Type": "application/ocsp-request"], body: request)
            guard response.status == 200 else { throw ResponderFailed(status: response.status) }
            return response.body
        }
    }
}
