import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CurlEngine {
    /// Registers the socket and timer callbacks through which libcurl tells the engine what to
    /// watch. The engine is passed unretained: the engine thread holds it for as long as the
    /// multi handle exists, and libcurl calls back only from inside calls made on that thread.
    func installCallbacks(on multi: UnsafeMutableRawPointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = ccurl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context)
        _ = ccurl_multi_setopt_socket_callback(multi) { _, fd, what, context, _ in
            guard let context else { return -1 }
            Unmanaged<CurlEngine>.fromOpaque(context).takeUnretainedValue().socketChanged(fd, what: what)
            return 0
        }
        _ = ccurl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context)
        _ = ccurl_multi_setopt_timer_callback(multi) { _, timeoutMilliseconds, context in
            guard let context else { return -1 }
            Unmanaged<CurlEngine>.fromOpaque(context).takeUnretainedValue().timerChanged(timeoutMilliseconds)
            return 0
        }
    }

    /// `CURLMOPT_SOCKETFUNCTION`: watch `fd` for what libcurl wants, or stop watching it.
    private func socketChanged(_ fd: Int32, what: Int32) {
        switch what {
        case CURL_POLL_IN: pollSet.watch(fd, readable: true, writable: false)
        case CURL_POLL_OUT: pollSet.watch(fd, readable: false, writable: true)
        case CURL_POLL_INOUT: pollSet.watch(fd, readable: true, writable: true)
        default: pollSet.remove(fd)  // CURL_POLL_REMOVE
        }
    }

    /// `CURLMOPT_TIMERFUNCTION`: -1 cancels the timer; otherwise libcurl wants
    /// `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)` after that many milliseconds.
    private func timerChanged(_ timeoutMilliseconds: Int) {
        timerDeadline = timeoutMilliseconds < 0 ? nil : .now + .milliseconds(timeoutMilliseconds)
    }
}
