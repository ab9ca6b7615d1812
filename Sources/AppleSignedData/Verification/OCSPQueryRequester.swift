import X509

/// Online revocation checks' transport: an OCSP request (DER) POSTed to the responder a
/// certificate names, as `application/ocsp-request`. The HTTP itself is the caller's (this target
/// has no network code): `post` returns the responder's body for a 200 and throws otherwise. Any
/// failure is non-terminal for swift-certificates, and the verifier fails hard on it: a payload
/// whose chain cannot be checked is refused (and retried by the caller).
public struct OCSPQueryRequester: OCSPRequester {
    public typealias Post = @Sendable (_ uri: String, _ request: [UInt8]) async throws -> [UInt8]

    private let post: Post

    public init(post: @escaping Post) {
        self.post = post
    }

    public func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
        do {
            return .response(try await post(uri, request))
        } catch {
            return .nonTerminalError(error)
        }
    }
}
