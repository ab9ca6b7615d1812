import Foundation
import PostgresTesting

#if canImport(Glibc)
import Glibc
#endif

/// A loopback port nothing listens on right now, for a child process to bind (the lab's runs and
/// the tests' admin listeners).
///
/// Why not the kernel's choice (`bind` to port 0): that port comes from the ephemeral range, the
/// same range the kernel hands out as the source port of every outgoing connection. Between this
/// check and the child's `bind`, a lab run opens thousands of them (libcurl to the fake Apple,
/// libpq to PostgreSQL), and one can take the port: the child then fails with "Address already
/// in use" (a chaos run in CI did). So the port comes from below the ephemeral range, where no
/// outgoing connection lands, at random so that parallel test processes rarely try the same one,
/// and below the ports `Deploy/dev` gives its PostgreSQL clusters (25432 and 26432 up): a child
/// holding one would move the dev cluster to another port when it next starts.
public enum FreePort {
    public static func pick() throws -> Int {
        let candidates = belowEphemeralRange()
        for _ in 0..<200 {
            let port = Int.random(in: candidates)
            if let bound = bindLoopback(port: port) { return bound }
        }
        // Nothing free below the range (or no range to read): the kernel's choice, as before.
        guard let port = bindLoopback(port: 0) else { throw TestSetupError("cannot find a free port on 127.0.0.1") }
        return port
    }

    /// Ports from 10000 up to 24999, or to the first ephemeral port (read from the kernel; Linux
    /// default 32768) if that is lower.
    public static func belowEphemeralRange() -> ClosedRange<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let first = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        return 10000...max(10001, min(first - 1, 24999))
    }

    /// Binds `port` on 127.0.0.1 (0: any) and releases it; the bound port, or nil when taken.
    private static func bindLoopback(port: Int) -> Int? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
