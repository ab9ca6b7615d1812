import Foundation
import PostgresTesting

#if canImport(Glibc)
import Glibc
#endif

/// A loopback port nothing listens on right now, for a child process to bind (the lab's runs and
/// the tests' admin listeners).
public enum FreePort {
    public static func pick() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw TestSetupError("cannot find a free port on 127.0.0.1") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
