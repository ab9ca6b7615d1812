import NIOCore
import NIOHTTP1

/// Carries out `FakeDecision`s on one connection: routes, reads the body, waits the decided
/// latency on the event loop (a scheduled task, not a blocked thread — thousands can wait at
/// once) and writes the answer. Routes: `POST /production/verifyReceipt`,
/// `POST /sandbox/verifyReceipt`, `GET /stats`; the Server API, admin and root certificate paths
/// go to `FakeServerAPI`; anything else is 404.
final class FakeHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Request bodies above this are not read further and are answered 21000. Real receipts are
    /// kilobytes; 1 MiB leaves room.
    static let maxRequestBytes = 1 << 20

    private let core: FakeAppStoreCore
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var bodyTooLarge = false

    init(core: FakeAppStoreCore) {
        self.core = core
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.removeAll(keepingCapacity: true)
            bodyTooLarge = false
        case .body(var buffer):
            if body.count + buffer.readableBytes > Self.maxRequestBytes {
                bodyTooLarge = true
            } else if let bytes = buffer.readBytes(length: buffer.readableBytes) {
                body.append(contentsOf: bytes)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            route(context: context, head: head)
        }
    }

    private func route(context: ChannelHandlerContext, head: HTTPRequestHead) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        switch path {
        case "/production/verifyReceipt": verify(context: context, head: head, endpoint: .production)
        case "/sandbox/verifyReceipt": verify(context: context, head: head, endpoint: .sandbox)
        case "/stats" where head.method == .GET:
            write(context: context, head: head, status: 200, contentType: "application/json", body: core.stats.json())
        default:
            let answer = core.serverAPI.answer(
                method: head.method.rawValue, uri: head.uri, authorization: head.headers.first(name: "Authorization"),
                body: bodyTooLarge ? [] : body, outage: core.configuration.outage(at: core.elapsed))
            body.removeAll(keepingCapacity: true)
            guard let answer else {
                write(context: context, head: head, status: 404, contentType: "text/plain", body: Array("not found\n".utf8))
                return
            }
            serve(answer, context: context, head: head)
        }
    }

    /// Writes a Server API or admin answer after its delay (a scheduled task, as for verifyReceipt).
    private func serve(_ answer: FakeServerAPIAnswer, context: ChannelHandlerContext, head: HTTPRequestHead) {
        if answer.closeConnection {
            core.stats.count(outcome: answer.outcome)
            context.close(promise: nil)
            return
        }
        let send = {
            guard context.channel.isActive else { return }
            if !answer.outcome.isEmpty { self.core.stats.count(outcome: answer.outcome) }
            self.write(context: context, head: head, status: answer.status, contentType: answer.contentType, body: answer.body,
                       extraHeaders: answer.headers)
        }
        if answer.delay <= .zero {
            send()
        } else {
            context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(answer.delay.nanoseconds)) { send() }
        }
    }

    private func verify(context: ChannelHandlerContext, head: HTTPRequestHead, endpoint: FakeEndpoint) {
        let number = core.stats.countRequest(at: core.elapsed)
        // Apple answers a GET or an oversized body as a request it could not read (21000).
        let usable = head.method == .POST && !bodyTooLarge
        var random = SystemRandomNumberGenerator()
        let decision = FakeDecision.scripted(number, configuration: core.configuration, random: &random) ?? FakeDecision.decide(
            endpoint: endpoint, body: usable ? body : [], elapsed: core.elapsed,
            configuration: core.configuration, receipts: core.receipts, random: &random)
        body.removeAll(keepingCapacity: true)
        switch decision {
        case .closeConnection:
            core.stats.count(outcome: decision.outcome)
            context.close(promise: nil)
        case .hang:
            core.stats.count(outcome: decision.outcome)
        case .respond(let answer) where answer.delay <= .zero:
            send(context: context, head: head, answer: answer)
        case .respond(let answer):
            core.stats.beganWaiting()
            context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(answer.delay.nanoseconds)) {
                self.core.stats.endedWaiting()
                self.send(context: context, head: head, answer: answer)
            }
        }
    }

    private func send(context: ChannelHandlerContext, head: HTTPRequestHead, answer: FakeAnswer) {
        guard context.channel.isActive else {
            core.stats.count(outcome: "client_gone")
            return
        }
        core.stats.count(outcome: answer.outcome, validTransactionIDs: answer.validTransactionIDs)
        write(context: context, head: head, status: answer.httpStatus, contentType: answer.contentType, body: answer.body)
    }

    private func write(context: ChannelHandlerContext, head: HTTPRequestHead, status: Int, contentType: String, body: [UInt8],
                       extraHeaders: [String: String] = [:]) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        for (name, value) in extraHeaders { headers.add(name: name, value: value) }
        headers.add(name: "Content-Length", value: String(body.count))
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let responseHead = HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        var buffer = context.channel.allocator.buffer(capacity: body.count)
        buffer.writeBytes(body)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        if !keepAlive {
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
