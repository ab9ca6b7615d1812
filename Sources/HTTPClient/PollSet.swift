#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if !os(Linux)
typealias EventPoll = PollSet
#endif

/// The portable stand-in for `EventPoll` where epoll does not exist: the sockets libcurl asked
/// the engine to watch (through `CURLMOPT_SOCKETFUNCTION`), as the `pollfd` array `poll(2)` takes. Entry 0 is always the wake-up pipe. Adding, changing and
/// removing a socket are O(1) (removal swaps the last entry into the hole).
/// Engine thread only.
struct PollSet {
    private(set) var entries: [pollfd]
    private var indexOf: [Int32: Int] = [:]

    init(wakeupFD: Int32) {
        entries = [pollfd(fd: wakeupFD, events: Int16(POLLIN), revents: 0)]
    }

    var socketCount: Int { entries.count - 1 }

    mutating func watch(_ fd: Int32, readable: Bool, writable: Bool) {
        let events = Int16((readable ? POLLIN : 0) | (writable ? POLLOUT : 0))
        if let index = indexOf[fd] {
            entries[index].events = events
        } else {
            indexOf[fd] = entries.count
            entries.append(pollfd(fd: fd, events: events, revents: 0))
        }
    }

    mutating func remove(_ fd: Int32) {
        guard let index = indexOf.removeValue(forKey: fd) else { return }
        let last = entries.count - 1
        if index != last {
            entries[index] = entries[last]
            indexOf[entries[index].fd] = index
        }
        entries.removeLast()
    }

    /// Waits up to `timeoutMilliseconds` (-1: forever). Returns whether the wake-up pipe fired
    /// and each ready socket with libcurl's `CURL_CSELECT_*` mask.
    mutating func wait(timeoutMilliseconds: Int32) -> (woken: Bool, ready: [(fd: Int32, mask: Int32)]) {
        let count = entries.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), timeoutMilliseconds)
        }
        guard count > 0 else { return (false, []) }
        let woken = entries[0].revents != 0
        var ready: [(fd: Int32, mask: Int32)] = []
        ready.reserveCapacity(Int(count))
        for index in 1..<entries.count where entries[index].revents != 0 {
            let revents = Int32(entries[index].revents)
            var mask: Int32 = 0
            if revents & Int32(POLLIN | POLLHUP) != 0 { mask |= 1 }   // CURL_CSELECT_IN
            if revents & Int32(POLLOUT) != 0 { mask |= 2 }            // CURL_CSELECT_OUT
            if revents & Int32(POLLERR | POLLNVAL) != 0 { mask |= 4 } // CURL_CSELECT_ERR
            ready.append((entries[index].fd, mask))
        }
        return (woken, ready)
    }

    func close() {}
}
