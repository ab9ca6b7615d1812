import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(Linux)
/// The sockets libcurl asked the engine to watch (through `CURLMOPT_SOCKETFUNCTION`), in an
/// epoll set: waiting costs time proportional to the sockets that are ready, not to the
/// thousands that are open (with `poll(2)` the kernel visited every socket on every turn — 40%
/// of the engine's CPU at 5,000 in flight). The wake-up pipe is always in the set.
/// Engine thread only.
struct EventPoll {
    private let epollFD: Int32
    private let wakeupFD: Int32
    private var watched: [Int32: UInt32] = [:]
    private var events = [epoll_event](repeating: epoll_event(), count: 1_024)

    init(wakeupFD: Int32) {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { fatalError("epoll_create1 failed: errno \(errno)") }
        self.wakeupFD = wakeupFD
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeupFD
        _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeupFD, &event)
    }

    var socketCount: Int { watched.count }

    mutating func watch(_ fd: Int32, readable: Bool, writable: Bool) {
        var event = epoll_event()
        event.events = (readable ? EPOLLIN.rawValue : 0) | (writable ? EPOLLOUT.rawValue : 0)
        event.data.fd = fd
        if watched[fd] == event.events { return }
        let known = watched[fd] != nil
        watched[fd] = event.events
        // A socket libcurl closed without telling us left the set by itself; its number may be
        // back as a new socket, so a failed MOD falls back to ADD and a failed ADD to MOD.
        if epoll_ctl(epollFD, known ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event) != 0 {
            _ = epoll_ctl(epollFD, known ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
        }
    }

    mutating func remove(_ fd: Int32) {
        guard watched.removeValue(forKey: fd) != nil else { return }
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)  // fails harmlessly if already closed
    }

    /// Waits up to `timeoutMilliseconds`. Returns whether the wake-up pipe fired and each ready
    /// socket with libcurl's `CURL_CSELECT_*` mask.
    mutating func wait(timeoutMilliseconds: Int32) -> (woken: Bool, ready: [(fd: Int32, mask: Int32)]) {
        let epollFD = self.epollFD
        let count = events.withUnsafeMutableBufferPointer { buffer in
            epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), timeoutMilliseconds)
        }
        guard count > 0 else { return (false, []) }
        var woken = false
        var ready: [(fd: Int32, mask: Int32)] = []
        ready.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            let fd = events[index].data.fd
            if fd == wakeupFD {
                woken = true
                continue
            }
            let flags = events[index].events
            var mask: Int32 = 0
            if flags & (EPOLLIN.rawValue | EPOLLHUP.rawValue) != 0 { mask |= 1 }  // CURL_CSELECT_IN
            if flags & EPOLLOUT.rawValue != 0 { mask |= 2 }                       // CURL_CSELECT_OUT
            if flags & EPOLLERR.rawValue != 0 { mask |= 4 }                       // CURL_CSELECT_ERR
            ready.append((fd, mask))
        }
        return (woken, ready)
    }

    /// Called once, on the engine thread, when the engine stops.
    func close() {
        _ = Glibc.close(epollFD)
    }
}
#endif
