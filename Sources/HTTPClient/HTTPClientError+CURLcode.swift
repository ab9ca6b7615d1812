import CCurl

extension HTTPClientError {
    /// The one place libcurl's result codes become Swift errors.
    /// - Parameters:
    ///   - code: the transfer's result.
    ///   - message: libcurl's error buffer for the transfer (may be empty).
    ///   - exceededLimit: set when our write callback stopped the transfer for size.
    static func from(code: CURLcode, message: String, exceededLimit: Int?) -> HTTPClientError {
        if let limit = exceededLimit { return .responseTooLarge(limit: limit) }
        let detail = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectFailed(detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_CRL_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
             CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CLIENTCERT:
            return .tls(detail)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidURL(detail)
        default:
            return .transport(code: Int(code.rawValue), message: detail)
        }
    }
}
