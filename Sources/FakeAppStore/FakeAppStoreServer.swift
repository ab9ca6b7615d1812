import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A loopback HTTP/1.1 server imitating Apple's two verifyReceipt servers on one port:
/// `POST /production/verifyReceipt`, `POST /sandbox/verifyReceipt`, and `GET /stats`; and the
/// App Store Server API of both environments (`/production/inApps/…`, `/sandbox/inApps/…`) with
/// its admin API and root certificate (`FakeServerAPI`).
///
/// Built on SwiftNIO directly rather than Hummingbird because a `refused` outage must close the
/// listening socket (so connects are really refused) and drop kept-alive connections without an
/// answer — things a router does not expose. Start with `start(configuration:)`; `stop()` closes
/// the listener and every open connection (hung requests included).
public final class FakeAppStoreServer: Sendable {
    public let configuration: FakeAppStoreConfiguration
    public let stats: FakeAppStoreStats
    /// The App Store Server API half: its purchases, signer (and root certificate), notifications.
    public let serverAPI: FakeServerAPI
    /// The port actually bound (useful when the configuration asked for 0).
    public let port: Int
    private let core: FakeAppStoreCore
    /// Time since it started: outage windows and `randomFaultsEnd` count from then.
    public var elapsed: Duration { core.elapsed }
    private let listener: Mutex<(any Channel)?>
    private let connections: FakeConnectionRegistry
    private let outageControl = Mutex<Task<Void, Never>?>(nil)

    /// Binds and starts serving; returns once the port is open.
    public static func start(configuration: FakeAppStoreConfiguration = .init()) async throws -> FakeAppStoreServer {
        let stats = FakeAppStoreStats()
        let serverAPI = try FakeServerAPI(configuration: configuration.serverAPI, stats: stats)
        let core = FakeAppStoreCore(configuration: configuration, stats: stats, startedAt: .now, serverAPI: serverAPI)
        let connections = FakeConnectionRegistry()
        let channel = try await bind(host: configuration.host, port: configuration.port, core: core, connections: connections)
        let port = channel.localAddress?.port ?? configuration.port
        let server = FakeAppStoreServer(core: core, listener: channel, port: port, connections: connections)
        server.startOutageControl()
        return server
    }

    private init(core: FakeAppStoreCore, listener: any Channel, port: Int, connections: FakeConnectionRegistry) {
        self.core = core
        self.configuration = core.configuration
        self.stats = core.stats
        self.serverAPI = core.serverAPI
        self.port = port
        self.listener = Mutex(listener)
        self.connections = connections
    }

    private var urlHost: String {
        configuration.host == "0.0.0.0" || configuration.host == "::" ? "127.0.0.1" : configuration.host
    }

    public var productionURL: String { "http://\(urlHost):\(port)/production/verifyReceipt" }
    public var sandboxURL: String { "http://\(urlHost):\(port)/sandbox/verifyReceipt" }
    public var statsURL: String { "http://\(urlHost):\(port)/stats" }
    /// The Server API base URL of production (`ServerAPIConfiguration.productionURL`).
    public var serverAPIProductionURL: String { "http://\(urlHost):\(port)/production" }
    /// The Server API base URL of the sandbox.
    public var serverAPISandboxURL: String { "http://\(urlHost):\(port)/sandbox" }
    /// The root certificate everything is signed under, as PEM.
    public var rootCertificateURL: String { "http://\(urlHost):\(port)/fake/root.pem" }
    /// Where the admin routes start (`…/purchases`, `…/refund`, …).
    public var adminURL: String { "http://\(urlHost):\(port)/fake/admin" }

    /// Stops listening and closes every connection, answered or not.
    public func stop() async {
        outageControl.withLock { $0?.cancel() }
        let channel = listener.withLock { channel in
            defer { channel = nil }
            return channel
        }
        try? await channel?.close()
        await connections.closeAll()
        await serverAPI.stop()
    }

    // MARK: - Refused outages: close and reopen the listening socket at window edges.

    private func startOutageControl() {
        let refused = configuration.outages.filter { $0.kind == .refused }
        guard !refused.isEmpty else { return }
        let task = Task { [weak self] in
            while !Task.isCancelled, let self {
                let elapsed = self.core.elapsed
                let refusing = refused.contains { $0.contains(elapsed) }
                await self.setListening(!refusing)
                let edges = refused.flatMap { [$0.start, $0.end] }.filter { $0 > elapsed }
                guard let next = edges.min() else { return }
                try? await Task.sleep(for: next - elapsed)
            }
        }
        outageControl.withLock { $0 = task }
    }

    private func setListening(_ wanted: Bool) async {
        let current = listener.withLock { $0 }
        if wanted, current == nil {
            for _ in 0..<50 {
                if let channel = try? await Self.bind(host: configuration.host, port: port, core: core, connections: connections) {
                    listener.withLock { $0 = channel }
                    return
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        } else if !wanted, let current {
            listener.withLock { $0 = nil }
            try? await current.close()
        }
    }

    private static func bind(host: String, port: Int, core: FakeAppStoreCore, connections: FakeConnectionRegistry) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 4_096)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                connections.add(channel)
                core.stats.countConnection()
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(FakeHTTPHandler(core: core))
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}

/// Open connections, so `stop()` can close hung ones.
final class FakeConnectionRegistry: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        channels.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.channels.withLock { $0.removeValue(forKey: key) }
        }
    }

    func closeAll() async {
        let open = channels.withLock { Array($0.values) }
        for channel in open { try? await channel.close() }
    }
}
