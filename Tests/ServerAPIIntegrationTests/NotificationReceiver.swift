import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A backend's notification endpoint, for the tests: records every POST body and answers 503 to
/// the first `failFirst`, then 200 — the outage Apple's retries are for.
final class NotificationReceiver: Sendable {
    struct Received: Sendable {
        let body: String
        let at: ContinuousClock.Instant
    }

    private let received = Mutex<[Received]>([])
    private let failuresLeft: Mutex<Int>
    private let channel: Mutex<(any Channel)?>
    let port: Int

    var url: String { "http://127.0.0.1:\(port)/notifications" }

    private init(failFirst: Int, channel: any Channel, port: Int) {
        self.failuresLeft = Mutex(failFirst)
        self.channel = Mutex(channel)
        self.port = port
    }

    static func start(failFirst: Int = 0) async throws -> NotificationReceiver {
        let box = Mutex<NotificationReceiver?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler { body in box.withLock { $0 }?.receive(body) ?? 503 })
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let receiver = NotificationReceiver(failFirst: failFirst, channel: channel, port: channel.localAddress?.port ?? 0)
        box.withLock { $0 = receiver }
        return receiver
    }

    func stop() async {
        let channel = self.channel.withLock { channel in
            defer { channel = nil }
            return channel
        }
        try? await channel?.close()
    }

    var all: [Received] { received.withLock { $0 } }

    private func receive(_ body: String) -> Int {
        received.withLock { $0.append(Received(body: body, at: .now)) }
        return failuresLeft.withLock { left in
            guard left > 0 else { return 200 }
            left -= 1
            return 503
        }
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let respond: @Sendable (String) -> Int
        var body: [UInt8] = []

        init(respond: @escaping @Sendable (String) -> Int) {
            self.respond = respond
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head: body = []
            case .body(var buffer): body += buffer.readBytes(length: buffer.readableBytes) ?? []
            case .end:
                let status = respond(String(decoding: body, as: UTF8.self))
                var headers = HTTPHeaders()
                headers.add(name: "Content-Length", value: "0")
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
