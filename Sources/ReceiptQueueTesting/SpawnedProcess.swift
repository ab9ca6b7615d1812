import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn` and reaped with `waitpid`, for the tests and for
/// the harness commands (`receiptq-lab chaos`, `receiptq-lab bench`) that start `receiptq` processes.
///
/// Why not Foundation's `Process`: on Linux its `run()` reads `/proc/self/fd` with a 256-byte
/// copy of each directory entry and crashed this test suite (SIGSEGV in memcpy, swift-corelibs-
/// foundation #5472) when the process held a thousand sockets; and its exit monitoring missed
/// an exit while several children ended at once, leaving `isRunning` true over a zombie.
///
/// The child gets: stdin from /dev/null; stdout and stderr as asked; no other descriptor of this
/// process (a PostgreSQL started through a shell inherited a thousand sockets and refused to
/// start); default signal dispositions and an empty signal mask, whatever this process set up.
public final class SpawnedProcess: Sendable {
    /// Where the child's stdout or stderr goes.
    public enum Output: Sendable {
        /// Inherit this process's.
        case inherit
        case null
        /// Appended to this file, created when missing.
        case file(String)
        /// A descriptor of this process (a pipe's write end, say); the caller closes its copy.
        case descriptor(Int32)
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let executable: String
        public let code: Int32
        public var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
    }

    public let pid: pid_t
    /// Exit status once reaped: the exit code, or 128 + signal.
    private let exitStatus = Mutex<Int32?>(nil)

    /// - Parameter environment: the child's whole environment (nil: this process's).
    public init(executable: String, arguments: [String], environment: [String: String]? = nil,
                stdout: Output = .inherit, stderr: Output = .inherit) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (target, output) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch output {
            case .inherit: break
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            }
        }
        // Close everything else in the child. glibc ignores a close action on a descriptor that
        // was closed in the meantime, and dup2 actions run first, in the order added.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environment = environment ?? ProcessInfo.processInfo.environment
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, &argv, &envp)
        guard code == 0 else { throw SpawnError(executable: executable, code: code) }
        self.pid = pid
    }

    /// Reaps the child if it has exited (never blocks).
    public var isRunning: Bool { terminationStatus == nil }

    /// The exit code (128 + signal when killed), or nil while it runs.
    public var terminationStatus: Int32? { reap(blocking: false) }

    private func reap(blocking: Bool) -> Int32? {
        exitStatus.withLock { exit in
            guard exit == nil else { return exit }
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if reaped == pid {
                // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (the C macros are not imported).
                let signal = status & 0x7f
                exit = signal == 0 ? (status >> 8) & 0xff : 128 + signal
            } else if reaped == -1 && errno == ECHILD {
                exit = -1   // reaped elsewhere: gone, status unknown
            }
            return exit
        }
    }

    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// SIGTERM: the graceful stop every `receiptq` service honours.
    public func terminate() { signal(SIGTERM) }

    /// Blocks the calling thread until the child exits (synchronous shutdown paths only).
    @discardableResult
    public func waitUntilExit() -> Int32 {
        while true {
            if let status = reap(blocking: true) { return status }   // nil only when interrupted (EINTR)
        }
    }

    /// Waits for exit, polling (no thread blocks); nil when `timeout` passed first.
    @discardableResult
    public func wait(timeout: Duration? = nil) async -> Int32? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            if let status = terminationStatus { return status }
            if let deadline, ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
