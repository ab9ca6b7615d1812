import Foundation
import Logging
import Synchronization

/// What a listener reports.
public enum PostgresListenerEvent: Sendable, Equatable {
    /// LISTEN is in effect (first connect or after a reconnect). Notifications sent while the
    /// listener was disconnected are lost, so a consumer should look at the table again now.
    case listening
    case notification(PostgresNotification)
}

/// LISTENs on channels over a dedicated connection and thread, waking on the socket with
/// `poll` (no busy loop, ~2 ms wake-up). Reconnects with backoff (0.1 s doubling to 5 s) after
/// the server restarts, and reports `.listening` each time LISTEN is in effect again.
public final class PostgresListener: Sendable {
    /// Notifications and (re)connections, in order. One consumer.
    public let events: AsyncStream<PostgresListenerEvent>
    private let continuation: AsyncStream<PostgresListenerEvent>.Continuation
    private let wakePipe: (read: Int32, write: Int32)
    /// Set by the first `stop()`: a second write could hit a pipe whose reader has exited (SIGPIPE).
    private let stopped = Mutex(false)

    public init(configuration: PostgresConfiguration, channels: [String], logger: Logger = Logger(label: "receiptq.listener")) {
        precondition(!channels.isEmpty, "listen to at least one channel")
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(100_000))
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "pipe() failed: \(errno)")
        wakePipe = (fds[0], fds[1])
        let loop = ListenLoop(configuration: configuration, channels: channels, continuation: continuation,
                              wakeFD: fds[0], logger: logger)
        Thread {
            Thread.current.name = "postgres-listen"
            loop.run()
        }.start()
    }

    /// The wake pipe's descriptors (read, write), for tests that check they are closed.
    var wakeDescriptors: (read: Int32, write: Int32) { wakePipe }

    /// Stops the thread, closes the connection and finishes `events`. Safe to call more than once.
    public func stop() {
        guard stopped.withLock({ let first = !$0; $0 = true; return first }) else { return }
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }

    deinit {
        stop()
        close(wakePipe.write)   // the loop thread closes the read end when it exits
    }
}

struct ListenLoop: @unchecked Sendable {
    let configuration: PostgresConfiguration
    let channels: [String]
    let continuation: AsyncStream<PostgresListenerEvent>.Continuation
    let wakeFD: Int32
    let logger: Logger

    func run() {
        defer {
            close(wakeFD)   // before finishing: whoever sees the end of `events` sees the pipe closed
            continuation.finish()
        }
        var backoff = 0.1
        while true {
            guard let connection = connect() else {
                if waitForStop(seconds: backoff) { return }
                backoff = min(backoff * 2, 5)
                continue
            }
            backoff = 0.1
            continuation.yield(.listening)
            if listen(on: connection) { return }   // stopped
        }
    }

    private func connect() -> PostgresConnection? {
        do {
            let connection = try PostgresConnection(configuration: configuration)
            for channel in channels {
                try connection.execute(script: "LISTEN \(quoteIdentifier(channel))")
            }
            return connection
        } catch {
            logger.warning("listener cannot connect; retrying", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Polls until the connection breaks (returns false) or stop is requested (returns true).
    private func listen(on connection: PostgresConnection) -> Bool {
        while true {
            var fds = [pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, 30_000)
            if ready < 0 && errno != EINTR { return false }
            if fds[1].revents != 0 { return true }
            do {
                for notification in try connection.consumeNotifications() {
                    continuation.yield(.notification(notification))
                }
            } catch {
                logger.warning("listener lost its connection; reconnecting", metadata: ["error": "\(error)"])
                return false
            }
            if ready == 0, (try? connection.query("SELECT 1")) == nil {
                return false  // idle for 30 s: make sure the connection is still there
            }
        }
    }

    private func waitForStop(seconds: Double) -> Bool {
        var fd = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
        return poll(&fd, 1, Int32(seconds * 1000)) > 0
    }
}

/// Double-quotes an SQL identifier (channel names in LISTEN cannot be parameters).
func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
