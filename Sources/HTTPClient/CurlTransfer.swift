import CCurl

/// One transfer while libcurl runs it: where the response accumulates, and the request it
/// answers (a hedged request has two). Touched only on the engine thread (libcurl calls the
/// callbacks there too).
final class CurlTransfer {
    /// Strong: the request lets go of its transfers as they end, which breaks the cycle.
    let request: EngineRequest
    let handle: CurlEasyHandle
    let maxResponseBytes: Int
    var requestHeaders: UnsafeMutablePointer<curl_slist>?
    /// Kept alive while libcurl may read it (`CURLOPT_POSTFIELDS` does not copy).
    var requestBody: HTTPBody?
    var body: [UInt8] = []
    var headers: [HTTPHeader] = []
    var exceededLimit = false
    /// When it was started: a transfer out `HTTPHedge.stragglerAfter` is taken for hung.
    let startedAt = ContinuousClock.now

    init(request: EngineRequest, handle: CurlEasyHandle, maxResponseBytes: Int) {
        self.request = request
        self.handle = handle
        self.maxResponseBytes = maxResponseBytes
    }

    /// Body bytes from libcurl. Returning less than `count` makes libcurl abort the transfer,
    /// which is how the size cap is enforced for bodies without a Content-Length.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if body.count + bytes.count > maxResponseBytes {
            exceededLimit = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// One header line, CRLF included. A status line starts a new response (after a 1xx or a
    /// proxy's CONNECT answer), so headers seen before it are dropped.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingSpaces()
        let value = line[line.index(after: colon)...].trimmingSpaces()
        if !name.isEmpty { headers.append(HTTPHeader(name: name, value: value)) }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        var view = self[...]
        while let first = view.first, first.isWhitespace { view.removeFirst() }
        while let last = view.last, last.isWhitespace { view.removeLast() }
        return String(view)
    }
}
