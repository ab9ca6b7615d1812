import CCurl

extension CurlEngine {
    /// Sets every per-request option on a freshly reset easy handle.
    /// - Returns: an error if libcurl refuses the URL; `nil` when the transfer may start.
    func configure(_ transfer: CurlTransfer, for request: PendingRequest) -> HTTPClientError? {
        let easy = transfer.handle.easy
        guard let policy = TransportPolicy.of(request.url) else {
            return .invalidURL("only https (plain http only to this machine)")
        }
        let urlResult = ccurl_easy_setopt_string(easy, CURLOPT_URL, request.url)
        if urlResult != CURLE_OK {
            return .invalidURL(String(cString: curl_easy_strerror(urlResult)))
        }
        // libcurl itself refuses any other protocol, for this URL and for any redirect (none is
        // followed today; this keeps a future FOLLOWLOCATION from downgrading to http).
        _ = ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, policy.curlProtocols)
        _ = ccurl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "https")
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.handle.errorBuffer)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, Unmanaged.passUnretained(transfer).toOpaque())
        // Threads and signals do not mix; timeouts are enforced by the multi loop instead.
        _ = ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeout.curlMilliseconds)
        _ = ccurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.curlMilliseconds)
        // TLS verification is always on, TLS 1.2 at least.
        _ = ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1)
        _ = ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2)
        _ = ccurl_easy_setopt_long(easy, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        if let bundle = configuration.caBundlePath {
            // Only this bundle: Debian's libcurl also trusts every certificate in /etc/ssl/certs
            // (its built-in CAPATH) unless the path is cleared.
            _ = ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, bundle)
            _ = ccurl_easy_setopt_string(easy, CURLOPT_CAPATH, nil)
        }
        _ = ccurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        if request.url.hasPrefix("https:") {
            // Prefer multiplexing on an HTTP/2 connection being set up over opening another one.
            _ = ccurl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        }
        _ = ccurl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1)
        _ = ccurl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        _ = ccurl_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maxResponseBytes))
        _ = ccurl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, configuration.receiveBufferBytes)

        var list: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Expect:")
        for (name, value) in request.headers {
            list = curl_slist_append(list, "\(name): \(value)")
        }
        transfer.requestHeaders = list
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, list)

        switch request.method {
        case .get:
            _ = ccurl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case .post, .put:
            // Sent in place from memory the transfer keeps alive: no copy per request.
            let body = request.body ?? HTTPBody([])
            transfer.requestBody = body
            _ = ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            _ = ccurl_easy_setopt_pointer(easy, CURLOPT_POSTFIELDS, body.baseAddress)
            if request.method == .put {
                // A body sent like a POST's, under another method name.
                _ = ccurl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, "PUT")
            }
        }

        let context = Unmanaged.passUnretained(transfer).toOpaque()
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            guard let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        _ = ccurl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            guard let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        return nil
    }
}
