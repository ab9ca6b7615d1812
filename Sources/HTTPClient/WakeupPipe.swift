#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How other threads wake the engine thread out of `poll(2)`: a byte written to a non-blocking
/// pipe whose read end is always in the engine's poll set.
///
/// The descriptors are closed only when the engine itself is freed, so a late `signal()` from a
/// task racing shutdown can never write into a descriptor number the process has reused.
final class WakeupPipe: Sendable {
    let readFD: Int32
    let writeFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { fatalError("pipe() failed: errno \(errno)") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    /// Safe from any thread. A full pipe already means "wake up", so EAGAIN is ignored.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Engine thread: empties the pipe after a wake-up.
    func drain() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &buffer, { read(readFD, $0.baseAddress, $0.count) }) > 0 {}
    }

    deinit {
        close(readFD)
        close(writeFD)
    }
}
