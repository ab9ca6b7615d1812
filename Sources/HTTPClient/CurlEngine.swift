import CCurl
import Foundation

/// One libcurl multi handle driven by one dedicated thread (`curl_multi_poll` +
/// `curl_multi_wakeup`): thousands of concurrent requests without a thread per request.
///
/// Thread-safety contract (why `@unchecked Sendable` is sound): `inbox` is locked and
/// `curl_multi_wakeup` is documented thread-safe; every other stored property — the multi
/// handle's state, `active`, `freeHandles` — is read and written only on the engine thread.
final class CurlEngine: @unchecked Sendable {
    let inbox = EngineInbox()
    private let multi: UnsafeMutableRawPointer
    let configuration: HTTPClientConfiguration
    // Engine thread only:
    private var active: [UInt64: CurlTransfer] = [:]
    private var freeHandles: [CurlEasyHandle] = []

    private static let globalInit: CURLcode = ccurl_global_init_default()

    init(configuration: HTTPClientConfiguration) {
        _ = Self.globalInit
        self.configuration = configuration
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        self.multi = multi
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxTotalConnections)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxIdleConnections)
        let thread = Thread { [self] in self.run() }
        thread.name = "http-client"
        thread.start()
    }

    /// Hands a request to the engine thread. Resumes the continuation at once if shut down.
    func submit(_ request: PendingRequest) {
        switch inbox.push(.start(request)) {
        case .wakeEngine: curl_multi_wakeup(multi)
        case .engineAlreadyWoken: break
        case .closed: request.continuation.resume(throwing: HTTPClientError.shutdown)
        }
    }

    /// Asks the engine thread to abandon a request; unknown or finished ids are ignored.
    func cancel(_ id: UInt64) {
        if case .wakeEngine = inbox.push(.cancel(id)) { curl_multi_wakeup(multi) }
    }

    /// Fails every request still held with `HTTPClientError.shutdown` and stops the thread.
    func requestShutdown() {
        if inbox.close() { curl_multi_wakeup(multi) }
    }

    // MARK: - Engine thread

    private func run() {
        var stillRunning: Int32 = 0
        var descriptors: Int32 = 0
        while true {
            let (commands, closed) = inbox.drain()
            for command in commands {
                switch command {
                case .start(let request): start(request)
                case .cancel(let id): if let transfer = active[id] { finish(transfer, .failure(CancellationError())) }
                }
            }
            if closed { break }
            curl_multi_perform(multi, &stillRunning)
            collectFinished()
            if active.count >= Self.batchingThreshold, configuration.busyLoopInterval > .zero {
                // With thousands of transfers, every turn of the loop costs O(transfers) in
                // libcurl (collecting sockets, poll, perform). Pausing briefly lets each turn
                // handle a batch of events instead of one; the added latency is a few ms.
                pause(configuration.busyLoopInterval)
            }
            curl_multi_poll(multi, nil, 0, 1_000, &descriptors)
        }
        for transfer in Array(active.values) { finish(transfer, .failure(HTTPClientError.shutdown)) }
        freeHandles.removeAll()
        curl_multi_cleanup(multi)
        inbox.markExited()
    }

    /// Below this many transfers in flight the loop never pauses (a lone request gets no delay).
    static let batchingThreshold = 256

    private func pause(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        nanosleep(&request, nil)
    }

    private func start(_ request: PendingRequest) {
        guard let handle = freeHandles.popLast() ?? CurlEasyHandle() else {
            request.continuation.resume(throwing: HTTPClientError.transport(code: -1, message: "curl_easy_init failed"))
            return
        }
        let transfer = CurlTransfer(
            id: request.id, handle: handle, continuation: request.continuation,
            maxResponseBytes: configuration.maxResponseBytes)
        if let error = configure(transfer, for: request) {
            release(transfer)
            request.continuation.resume(throwing: error)
            return
        }
        active[request.id] = transfer
        let added = curl_multi_add_handle(multi, handle.easy)
        if added != CURLM_OK {
            finish(transfer, .failure(HTTPClientError.transport(code: Int(added.rawValue), message: "curl_multi_add_handle failed")))
        }
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var privatePointer: UnsafeMutableRawPointer?
            _ = ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &privatePointer)
            guard let privatePointer else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(privatePointer).takeUnretainedValue()
            guard code == CURLE_OK else {
                let tooLarge = transfer.exceededLimit || code == CURLE_FILESIZE_EXCEEDED
                let error = HTTPClientError.from(
                    code: code, message: transfer.handle.errorMessage,
                    exceededLimit: tooLarge ? configuration.maxResponseBytes : nil)
                finish(transfer, .failure(error))
                continue
            }
            var status = 0
            _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            finish(transfer, .success(HTTPResponse(status: status, headers: transfer.headers, body: transfer.body)))
        }
    }

    /// Removes the transfer from libcurl, recycles its handle, then resumes the waiting task.
    private func finish(_ transfer: CurlTransfer, _ result: Result<HTTPResponse, any Error>) {
        curl_multi_remove_handle(multi, transfer.handle.easy)
        active[transfer.id] = nil
        release(transfer)
        transfer.continuation.resume(with: result)
    }

    private func release(_ transfer: CurlTransfer) {
        if let list = transfer.requestHeaders {
            curl_slist_free_all(list)
            transfer.requestHeaders = nil
        }
        if freeHandles.count < configuration.maxIdleEasyHandles {
            transfer.handle.reset()
            freeHandles.append(transfer.handle)
        }
    }
}
