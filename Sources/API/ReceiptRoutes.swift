import AppleSignedData
import Hummingbird
import ReceiptQueue

/// POST /v1/receipts and GET /v1/receipts/{id}.
struct ReceiptRoutes<Context: RequestContext> {
    let configuration: APIConfiguration
    let queue: JobQueue
    let groupCommit: JobGroupCommit
    let waiters: ResultWaiters
    let longPolls: LongPollBudget
    let metrics: APIMetrics

    func register(on group: RouterGroup<Context>) {
        group.post("receipts") { request, _ in try await submit(request) }
        group.get("receipts/:id") { request, context in try await status(request, context: context) }
    }

    /// 202 once committed; 200 with the existing job when the same receipt and transaction were
    /// submitted before (whatever else the resubmission claims: the purchase is in hand).
    func submit(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(ReceiptSubmission.self, from: request, limit: configuration.maxBodyBytes)
        var job = try body.validated(maxReceiptBytes: configuration.maxReceiptBytes)
        job.requestID = RequestID.of(request)
        if let receiptData = job.receiptData { try await checkLocally(receiptData) }
        let result = try await groupCommit.submitTraced(job, tracing: configuration.tracing)
        metrics.submitted(created: result.created)
        var response = try JSONBody.response(ReceiptStatus(result), status: result.created ? .accepted : .ok)
        response.headers[.location] = ReceiptStatus.url(result.id)
        return response
    }

    /// With `receiptCheck`: a 422 for a receipt that provably is not Apple's for one of our apps,
    /// before anything is stored. A refusal that may be our own gap (an unknown root, a field
    /// this release cannot read) passes: the worker asks Apple, and a paid purchase is kept.
    private func checkLocally(_ receiptData: String) async throws {
        guard let verifier = configuration.receiptCheck else { return }
        do {
            _ = try await verifier.verify(base64: receiptData)
            metrics.receiptChecked("verified")
        } catch let error as AppReceiptVerificationError where error.reason.provesNotAnAppleReceiptOfOurs {
            metrics.receiptChecked("refused")
            throw Problem(.invalidReceipt, error.description)
        } catch {
            metrics.receiptChecked("unconfirmed")
        }
    }

    /// The job now, or — with `?wait=N` (seconds, up to `maxWait`) — once it is final or N
    /// seconds passed, whichever is first. Woken by `ResultListener`, not by polling. Beyond the
    /// caps on waiting long-polls (`LongPollBudget`), answered at once as with `?wait=0`.
    func status(_ request: Request, context: Context) async throws -> Response {
        guard let id = context.parameters.get("id", as: Int64.self), id > 0 else { throw Problem(.notFound) }
        var wait = try waitDuration(request)
        let token = RequestToken.index ?? -1
        if wait > .zero, !longPolls.enter(token: token) {
            metrics.longPollCapped()
            wait = .zero
        }
        if wait > .zero { metrics.longPoll(started: true) }
        defer {
            if wait > .zero {
                metrics.longPoll(started: false)
                longPolls.leave(token: token)
            }
        }
        let deadline = ContinuousClock.now + wait
        while true {
            let ticket = wait > .zero ? waiters.register(job: id) : nil
            let record: JobRecord?
            do {
                record = try await queue.job(id: id)
            } catch {
                if let ticket { waiters.remove(ticket) }
                throw error
            }
            guard let record else {
                if let ticket { waiters.remove(ticket) }
                throw Problem(.notFound, "no receipt job with id \(id)")
            }
            let remaining = deadline - .now
            guard let ticket, !record.state.isTerminal, remaining > .zero, !waiters.isClosed else {
                if let ticket { waiters.remove(ticket) }
                return try JSONBody.response(ReceiptStatus(record))
            }
            await waiters.wait(ticket, timeout: remaining)
        }
    }

    private func waitDuration(_ request: Request) throws -> Duration {
        guard let text = request.uri.queryParameters.get("wait") else { return .zero }
        let maxSeconds = Double(configuration.maxWait.components.seconds)
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= maxSeconds else {
            throw Problem.invalid("wait", "wait must be a number of seconds from 0 to \(Int(maxSeconds))")
        }
        return .milliseconds(Int64(seconds * 1000))
    }
}
