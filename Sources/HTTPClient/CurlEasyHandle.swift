import CCurl

/// One libcurl easy handle and its error buffer, kept on the engine's free list between requests
/// so that 5,000 requests a second do not cost 5,000 allocations of libcurl's per-handle state.
/// Touched only on the engine thread.
final class CurlEasyHandle {
    let easy: UnsafeMutableRawPointer
    /// `CURL_ERROR_SIZE` bytes that libcurl fills with a readable message when a transfer fails.
    let errorBuffer: UnsafeMutablePointer<CChar>

    init?() {
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        self.errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    /// Clears every option before reuse; live connections stay in the multi handle's cache.
    func reset() {
        curl_easy_reset(easy)
        errorBuffer[0] = 0
    }

    var errorMessage: String {
        String(cString: errorBuffer)
    }

    deinit {
        curl_easy_cleanup(easy)
        errorBuffer.deallocate()
    }
}
