import CCurl
import Foundation

/// One libcurl multi handle driven by one dedicated thread: thousands of concurrent requests
/// without a thread per request.
///
/// The loop uses libcurl's socket interface (`curl_multi_socket_action`): libcurl says which
/// sockets to watch and when its next timeout is due; the thread waits on those sockets plus a
/// wake-up pipe (epoll on Linux, `EventPoll`), and hands libcurl only the sockets that are ready. That keeps libcurl's work
/// per turn proportional to the events, not to the transfers in flight — with
/// `curl_multi_poll` + `curl_multi_perform`, every turn tried every transfer, which measured
/// about 10 ms a turn and 0.6–1.1 ms of CPU per request at 1,000–5,000 in flight.
///
/// Stragglers are hedged here too (`HTTPHedge`): the loop's own timer list says when a request
/// is due for a second transfer, so a hedged request still costs its caller one awaiting task.
///
/// Thread-safety contract (why `@unchecked Sendable` is sound): `inbox` is locked and `wakeup`
/// only writes to a pipe; every other stored property — the multi handle, `active`,
/// `freeHandles`, `hedgeTimers`, `pollSet`, `timerDeadline` — is read and written only on the engine thread
/// (libcurl calls the socket and timer callbacks there too, from inside its functions).
final class CurlEngine: @unchecked Sendable {
    let inbox = EngineInbox()
    let configuration: HTTPClientConfiguration
    private let wakeup = WakeupPipe()
    private let multi: UnsafeMutableRawPointer
    // Engine thread only:
    private var active: [UInt64: EngineRequest] = [:]
    private var freeHandles: [CurlEasyHandle] = []
    private var hedgeTimers = HedgeTimers()
    var pollSet: EventPoll
    var timerDeadline: ContinuousClock.Instant?

    private static let globalInit: CURLcode = ccurl_global_init_default()

    init(configuration: HTTPClientConfiguration) {
        _ = Self.globalInit
        self.configuration = configuration
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        self.multi = multi
        self.pollSet = EventPoll(wakeupFD: wakeup.readFD)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxTotalConnections)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxIdleConnections)
        installCallbacks(on: multi)
        let thread = Thread { [self] in self.run() }
        thread.name = "http-client"
        thread.start()
    }

    /// Hands a request to the engine thread. Resumes the continuation at once if shut down.
    func submit(_ request: PendingRequest) {
        switch inbox.push(.start(request)) {
        case .wakeEngine: wakeup.signal()
        case .engineAlreadyWoken: break
        case .closed: request.continuation.resume(throwing: HTTPClientError.shutdown)
        }
    }

    /// Asks the engine thread to abandon a request; unknown or finished ids are ignored.
    func cancel(_ id: UInt64) {
        if case .wakeEngine = inbox.push(.cancel(id)) { wakeup.signal() }
    }

    /// Fails every request still held with `HTTPClientError.shutdown` and stops the thread.
    func requestShutdown() {
        if inbox.close() { wakeup.signal() }
    }

    // MARK: - Engine thread

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            let (commands, closed) = inbox.drain()
            for command in commands {
                switch command {
                case .start(let request): start(request)
                case .cancel(let id): if let request = active[id] { finish(request, .failure(CancellationError())) }
                }
            }
            if closed { break }
            if let deadline = timerDeadline, deadline <= .now {
                // Cleared first: libcurl may set a new timer from inside this call.
                timerDeadline = nil
                curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &stillRunning)
                collectFinished()
            }
            sendDueHedges()
            batchEvents()
            let (woken, ready) = pollSet.wait(timeoutMilliseconds: pollTimeout())
            if woken { wakeup.drain() }
            for (fd, mask) in ready {
                curl_multi_socket_action(multi, fd, mask, &stillRunning)
            }
            collectFinished()
        }
        for request in Array(active.values) { finish(request, .failure(HTTPClientError.shutdown)) }
        freeHandles.removeAll()
        curl_multi_cleanup(multi)
        pollSet.close()
        inbox.markExited()
    }

    /// With many sockets watched, lets events accumulate for 1 µs per socket (at most
    /// `maxBatchingDelay`) so one turn of the loop serves a batch instead of one event.
    private func batchEvents() {
        let sockets = pollSet.socketCount
        guard sockets >= 64, configuration.maxBatchingDelay > .zero else { return }
        let delay = min(configuration.maxBatchingDelay, .microseconds(sockets))
        let (seconds, attoseconds) = delay.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        nanosleep(&request, nil)
    }

    /// Until libcurl's next timeout or the next hedge due (at most 1 s, so a missed wake-up can
    /// never stall the loop).
    private func pollTimeout() -> Int32 {
        let soonest = [timerDeadline, hedgeTimers.nextDue].compactMap { $0 }.min()
        guard let deadline = soonest else { return 1_000 }
        let remaining = deadline - .now
        if remaining <= .zero { return 0 }
        return Int32(min(1_000, remaining.curlMilliseconds))
    }

    private func start(_ pending: PendingRequest) {
        let request = EngineRequest(pending)
        if let error = startTransfer(of: request) {
            pending.continuation.resume(throwing: error)
            return
        }
        active[pending.id] = request
        if let hedge = pending.hedge { hedgeTimers.add(pending.id, due: .now + hedge.after) }
    }

    /// Starts one transfer of `request`: its first, or its hedge.
    /// - Returns: why it could not start, or `nil`.
    private func startTransfer(of request: EngineRequest) -> HTTPClientError? {
        guard let handle = freeHandles.popLast() ?? CurlEasyHandle() else {
            return .transport(code: -1, message: "curl_easy_init failed")
        }
        let transfer = CurlTransfer(request: request, handle: handle, maxResponseBytes: configuration.maxResponseBytes)
        if let error = configure(transfer, for: request.pending) {
            release(transfer)
            return error
        }
        let added = curl_multi_add_handle(multi, handle.easy)
        if added != CURLM_OK {
            release(transfer)
            return .transport(code: Int(added.rawValue), message: "curl_multi_add_handle failed")
        }
        request.transfers.append(transfer)
        return nil
    }

    /// Sends the hedges now due: requests whose first transfer is still out `after` it went,
    /// when their caller allows (`HTTPHedge.mayHedge`). A hedge that cannot start is skipped:
    /// the first transfer is still out.
    private func sendDueHedges() {
        guard hedgeTimers.nextDue != nil else { return }
        let now = ContinuousClock.now
        while let id = hedgeTimers.popDue(now: now) {
            guard let request = active[id], let hedge = request.pending.hedge else { continue }
            if request.heldTrouble != nil {
                endIfOnlyStragglersAreLeft(request, hedge, now: now)
                continue
            }
            guard request.hedges == 0, hedge.mayHedge() else { continue }
            request.hedges = 1
            _ = startTransfer(of: request)
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
                ended(transfer, .failure(error))
                continue
            }
            var status = 0
            _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            ended(transfer, .success(HTTPResponse(status: status, headers: transfer.headers, body: transfer.body)))
        }
    }

    /// One transfer ended. Its answer ends the request unless the other transfer of a hedged
    /// request is still out and the caller's `HTTPHedge.endsTheWait` says to wait for that one.
    private func ended(_ transfer: CurlTransfer, _ result: Result<HTTPResponse, HTTPClientError>) {
        let request = transfer.request
        let wasHedge = request.transfers.first !== transfer
        curl_multi_remove_handle(multi, transfer.handle.easy)
        release(transfer)
        request.transfers.removeAll { $0 === transfer }
        if !request.transfers.isEmpty, let hedge = request.pending.hedge, !hedge.endsTheWait(result) {
            if wasHedge { rehedge(request, hedge) }
            request.heldTrouble = result
            endIfOnlyStragglersAreLeft(request, hedge, now: .now)
            return
        }
        finish(request, result.mapError { $0 })
    }

    /// An answer of Apple's trouble is held (`EngineRequest.heldTrouble`): the request ends with
    /// it now if every transfer still out has been out `HTTPHedge.stragglerAfter`, or is looked
    /// at again when the youngest will have been.
    private func endIfOnlyStragglersAreLeft(_ request: EngineRequest, _ hedge: HTTPHedge, now: ContinuousClock.Instant) {
        guard let stragglerAfter = hedge.stragglerAfter, let held = request.heldTrouble,
              let youngest = request.transfers.map(\.startedAt).max() else { return }
        let due = youngest + stragglerAfter
        if due <= now {
            finish(request, held.mapError { $0 })
        } else {
            hedgeTimers.add(request.pending.id, due: due)
        }
    }

    /// A straggler's hedge came back inconclusive (Apple's trouble: a 503, a 21005) while the
    /// straggler is still out, most likely hung: one more transfer goes at once, if the caller
    /// allows (`HTTPHedge.mayHedge`), instead of waiting for the straggler's timeout — with 1 %
    /// 503s and 0.2 % hangs that wait plus a retry was a steady stream's slowest verdict (~20 s).
    /// At most once per request, and not for a pair sent at once (`after` zero): the other
    /// request of a pair is no straggler.
    private func rehedge(_ request: EngineRequest, _ hedge: HTTPHedge) {
        guard request.hedges == 1, hedge.after > .zero, hedge.mayHedge() else { return }
        request.hedges = 2
        _ = startTransfer(of: request)
    }

    /// Aborts whatever the request still has out, recycles the handles, then resumes the waiting task.
    private func finish(_ request: EngineRequest, _ result: Result<HTTPResponse, any Error>) {
        for transfer in request.transfers {
            curl_multi_remove_handle(multi, transfer.handle.easy)
            release(transfer)
        }
        request.transfers.removeAll()
        active[request.pending.id] = nil
        request.pending.continuation.resume(with: result)
    }

    private func release(_ transfer: CurlTransfer) {
        transfer.requestBody = nil
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
