import PostgresTesting
import Foundation
import ReceiptQueueTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Slow clients must not pin the API's connections: a request head that never completes is cut
/// after the idle timeout, while everyone else is served meanwhile.
@Suite("Slow clients are disconnected, others are served")
struct SlowClientTests {
    @Test("A client that dribbles a request head is disconnected after the idle timeout")
    func dribbledHeadIsCutAfterIdleTimeout() async throws {
        let api = try await APIHarness.start { $0.idleTimeout = .seconds(1) }
        let socket = try RawConnection(port: api.port)
        defer { socket.close() }
        let started = ContinuousClock.now
        var closedByServer = false
        // One byte of a request head every 300 ms: never a complete part, so never "active".
        for byte in Array("POST /v1/receipts HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 40) {
            if !socket.send(byte) || socket.peerClosed() { closedByServer = true; break }
            #expect(try await api.get("/v1/receipts/1").status == 404)
            try await Task.sleep(for: .milliseconds(300))
        }
        let held = ContinuousClock.now - started
        #expect(closedByServer)
        #expect(held < .seconds(10), "the server held a slow client for \(held)")
        await api.stop()
    }
}

/// A blocking loopback TCP connection, byte by byte, for clients no HTTP library would imitate.
private final class RawConnection: Sendable {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestSetupError("connect to 127.0.0.1:\(port) failed") }
    }

    /// False when the server has closed the connection (EPIPE/ECONNRESET).
    func send(_ byte: UInt8) -> Bool {
        var value = byte
        return Glibc.send(descriptor, &value, 1, Int32(MSG_NOSIGNAL)) == 1
    }

    /// True once the server has closed its side (a zero-byte read that does not block).
    func peerClosed() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    func close() { _ = Glibc.close(descriptor) }
}
