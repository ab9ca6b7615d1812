import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `/bin/sh -c command` and waits for it without Foundation's `Process`, whose exit
/// monitoring missed an exit while several children ended at once (a PostgreSQL restart racing
/// a worker kill left `isRunning` true over a zombie forever). Here the caller reaps its own
/// child with `waitpid`, polling so no thread blocks. The child gets stdin from /dev/null,
/// stdout and stderr on `output`, and no other descriptor of this process.
enum ShellCommand {
    /// The exit status (128 + signal when killed), or nil when the shell could not be started or
    /// its status was lost.
    static func run(_ command: String, output: FileHandle?) async -> Int32? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output.fileDescriptor, 1)
            posix_spawn_file_actions_adddup2(&actions, output.fileDescriptor, 2)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // This process holds a thousand sockets mid-run; a PostgreSQL started by the command
        // inherited them and refused to start ("insufficient file descriptors"). glibc ignores
        // a close action on a descriptor that closed in the meantime.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let arguments = ["/bin/sh", "-c", command]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", &actions, nil, &argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        var reaped = waitpid(pid, &status, WNOHANG)
        while reaped == 0 {
            try? await Task.sleep(for: .milliseconds(50))
            reaped = waitpid(pid, &status, WNOHANG)
        }
        guard reaped == pid else { return nil }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (the C macros are not imported).
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
