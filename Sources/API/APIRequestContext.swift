import Hummingbird
import NIOCore

/// The API's request context: Hummingbird's basic one plus the client's address, which the
/// failed-authentication limit is keyed by (`AuthFailureLimiter`).
public struct APIRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The address as a limiter key: the IP without the port (a client opens many connections).
    var clientKey: String {
        remoteAddress?.ipAddress ?? remoteAddress?.description ?? "unknown"
    }
}
