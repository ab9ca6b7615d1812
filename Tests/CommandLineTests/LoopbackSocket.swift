#if canImport(Glibc)
import Glibc
#endif
import PostgresTesting

/// Loopback sockets a test holds on purpose, to leave a process something in flight at SIGTERM:
/// a listener that never accepts (a webhook receiver that hangs once connected) and a client
/// that sends half a request and stops (a slow client).
final class LoopbackSocket: Sendable {
    let descriptor: Int32
    /// The local port (a listener's: where clients connect).
    let port: Int

    private init(descriptor: Int32, port: Int) {
        self.descriptor = descriptor
        self.port = port
    }

    /// Listens on a free loopback port and never accepts: the kernel completes each connection
    /// in the backlog, takes the request bytes, and nobody ever answers.
    static func silentListener() throws -> LoopbackSocket {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSetupError("socket() failed: \(errno)") }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 128) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard listening else {
            close(descriptor)
            throw TestSetupError("cannot listen on 127.0.0.1")
        }
        return LoopbackSocket(descriptor: descriptor, port: Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Connects to `port` on loopback and sends `bytes`, then leaves the connection open.
    static func connect(port: Int, sending bytes: [UInt8]) throws -> LoopbackSocket {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSetupError("socket() failed: \(errno)") }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected, bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            close(descriptor)
            throw TestSetupError("cannot connect to 127.0.0.1:\(port) and send")
        }
        return LoopbackSocket(descriptor: descriptor, port: port)
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    deinit { close(descriptor) }
}
