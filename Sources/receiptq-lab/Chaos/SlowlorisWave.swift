import CommandSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One wave of slowloris clients: `connections` TCP connections that send a request head one
/// byte every 2 s and never finish it. Blocking socket calls and sleeps, so it runs on a thread
/// of its own, never on Swift's cooperative pool.
enum SlowlorisWave {
    struct Result: Sendable {
        var opened = 0
        /// Connections the server closed before `limit`.
        var cut = 0
        var longestHeldSeconds = 0.0
    }

    static func run(host: String, port: Int, connections: Int, limit: Duration) async -> Result {
        await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: runBlocking(host: host, port: port, connections: connections, limit: limit))
            }.start()
        }
    }

    private static func runBlocking(host: String, port: Int, connections: Int, limit: Duration) -> Result {
        let head = Array("POST /v1/receipts HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\nX-Padding: ".utf8)
        var sockets: [(descriptor: Int32, opened: ContinuousClock.Instant)] = []
        for _ in 0..<connections {
            if let descriptor = connect(host: host, port: port) { sockets.append((descriptor, .now)) }
        }
        var result = Result(opened: sockets.count)
        var sent = 0
        let started = ContinuousClock.now
        while !sockets.isEmpty, ContinuousClock.now - started < limit {
            let byte = sent < head.count ? head[sent] : UInt8(ascii: "a")
            sent += 1
            sockets.removeAll { socket in
                var value = byte
                let closed = send(socket.descriptor, &value, 1, Int32(MSG_NOSIGNAL)) != 1 || peerClosed(socket.descriptor)
                if closed {
                    result.cut += 1
                    result.longestHeldSeconds = max(result.longestHeldSeconds, (ContinuousClock.now - socket.opened).seconds)
                    close(socket.descriptor)
                }
                return closed
            }
            Thread.sleep(forTimeInterval: 2)
        }
        for socket in sockets {
            result.longestHeldSeconds = max(result.longestHeldSeconds, (ContinuousClock.now - socket.opened).seconds)
            close(socket.descriptor)
        }
        return result
    }

    private static func connect(host: String, port: Int) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(descriptor); return nil }
        return descriptor
    }

    /// True once the peer has closed (a read that returns 0 or fails other than "would block").
    private static func peerClosed(_ descriptor: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }
}
