import CommandSupport
import ReceiptQueueTesting

/// Runs `/bin/sh -c command` and waits for it, polling so no thread blocks. The child gets
/// stdin from /dev/null, stdout and stderr appended to `log`, and no other descriptor of this
/// process: this process holds a thousand sockets mid-run, and a PostgreSQL started by the
/// command inherited them and refused to start ("insufficient file descriptors").
enum ShellCommand {
    /// The exit status (128 + signal when killed), or nil when the shell could not be started.
    static func run(_ command: String, log: String?) async -> Int32? {
        let output: SpawnedProcess.Output = log.map { .file($0) } ?? .null
        guard let shell = try? SpawnedProcess(executable: "/bin/sh", arguments: ["-c", command], stdout: output, stderr: output) else {
            return nil
        }
        return await shell.wait()
    }
}
