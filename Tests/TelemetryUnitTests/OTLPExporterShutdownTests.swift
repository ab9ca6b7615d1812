import Foundation
import HTTPClient
import Logging
import ServiceLifecycleTestKit
@testable import Telemetry
import Testing
import Tracing

/// A collector that takes the connection and never answers must not hold a process's shutdown:
/// the send in flight is cut, its spans kept, and the exporter returns within its shutdown
/// budget — however long the request timeout.
@Suite struct OTLPExporterShutdownTests {
    /// A loopback socket that listens and never accepts: the kernel completes the handshake, the
    /// request goes out, no answer ever comes.
    static func silentCollector() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func aSilentCollectorDoesNotHoldShutdown() async throws {
        let collector = try Self.silentCollector()
        defer { close(collector.fd) }
        var configuration = OTLPExporter.Configuration(endpoint: "http://127.0.0.1:\(collector.port)",
                                                       resource: .init(serviceName: "test", serviceVersion: "0", instanceID: "here"))
        configuration.interval = .milliseconds(100)
        configuration.requestTimeout = .seconds(30)
        configuration.shutdownTimeout = .seconds(1)
        let http = HTTPClient()
        let exporter = OTLPExporter(configuration: configuration, http: http, logger: Logger(label: "test"))
        OTLPTracer(exporter: exporter).startSpan("waiting", context: .topLevel, ofKind: .internal, at: DefaultTracerClock.now,
                                                  function: #function, file: #fileID, line: #line).end()
        let elapsed = try await testGracefulShutdown { trigger in
            let running = Task { try await exporter.run() }
            try await Task.sleep(for: .milliseconds(600))   // the first send is in flight, unanswered
            let signalled = ContinuousClock.now
            trigger.triggerGracefulShutdown()
            try await running.value
            return ContinuousClock.now - signalled
        }
        await http.shutdown()
        #expect(elapsed < .seconds(3), "returned \(elapsed) after shutdown began (shutdown budget 1 s, request timeout 30 s)")
        #expect(exporter.counts.sent == 0)
        #expect(exporter.counts.dropped + exporter.buffered.count == 1, "the span is kept or counted, never lost silently")
    }
}
