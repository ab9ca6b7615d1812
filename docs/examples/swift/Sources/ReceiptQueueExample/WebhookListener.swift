import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Just enough HTTP/1.1 server to receive webhooks on loopback, so this example needs no web
/// framework. In a real backend, use your framework's route (Vapor, Hummingbird) and call
/// `verifyWebhook` there: this type is scaffolding, not a server to deploy.
final class WebhookListener: @unchecked Sendable {
    typealias Handler = @Sendable (_ headers: [String: String], _ body: Data) -> Int
    private let socket: Int32

    init(port: UInt16) throws {
        #if canImport(Glibc)
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socket, 16) == 0 else { throw WebhookRefused("cannot listen on 127.0.0.1:\(port)") }
    }

    /// Answers each request on a thread of its own with the status `handler` returns.
    func serve(_ handler: @escaping Handler) {
        let socket = self.socket
        Thread.detachNewThread {
            while true {
                let connection = accept(socket, nil, nil)
                guard connection >= 0 else { return }
                Thread.detachNewThread { Self.answer(connection, handler) }
            }
        }
    }

    private static func answer(_ connection: Int32, _ handler: Handler) {
        defer { close(connection) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var headers: [String: String] = [:]
        var bodyStart: Int?
        while true {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            received.append(contentsOf: buffer[0..<count])
            if bodyStart == nil, let end = received.range(of: Data("\r\n\r\n".utf8)) {
                bodyStart = end.upperBound
                for line in String(decoding: received[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n").dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
                }
            }
            if let bodyStart, received.count - bodyStart >= Int(headers["content-length"] ?? "0") ?? 0 { break }
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let start = received.startIndex + (bodyStart ?? 0)
        let status = handler(headers, received.subdata(in: start..<(start + length)))
        let reply = "HTTP/1.1 \(status) \(status < 300 ? "OK" : "Refused")\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        _ = reply.utf8CString.withUnsafeBufferPointer { write(connection, $0.baseAddress, $0.count - 1) }
    }
}
