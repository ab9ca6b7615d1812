import ArgumentParser
import Foundation
import Postgres
import ReceiptQueue


/// Exit statuses a supervisor can act on (sysexits.h): a configuration that cannot work exits 78
/// (EX_CONFIG), so systemd's `RestartPreventExitStatus=78` stops restarting a process that would
/// only fail again; bad command-line usage exits 64 (EX_USAGE); anything else 1.
public enum ExitStatus {
    public static let configuration: Int32 = 78

    /// Whether `error` means "fix the configuration": our own `ConfigurationError`, a schema
    /// `receiptq migrate` refuses (`MigrationError`), a database URL that does not parse, or
    /// PostgreSQL refusing the credentials (SQLSTATE class 28).
    public static func isConfiguration(_ error: any Error) -> Bool {
        // A migration changed after it was applied, or a schema with parts missing: restarting fixes nothing.
        if error is ConfigurationError || error is MigrationError { return true }
        if let error = error as? PostgresError {
            return error.kind == .invalidConfiguration || (error.sqlState?.hasPrefix("28") ?? false)
                || error.message.contains("password authentication failed")
        }
        return false
    }
}

extension AsyncParsableCommand {
    /// Parses, runs, and exits with the status of `ExitStatus`. Call from `static func main()`.
    ///
    /// With `environmentVariables`, each option the command line leaves out is taken from its
    /// `RECEIPTQ_*` variable (`EnvironmentArguments`); an error about such an option names the
    /// variable and exits 78, since the fix is in the configuration, not the command line.
    public static func runWithExitStatus(environmentVariables: Bool = false) async {
        var expanded: EnvironmentArguments?
        do {
            var arguments = Array(CommandLine.arguments.dropFirst())
            if environmentVariables {
                expanded = try EnvironmentArguments(arguments: arguments, catalog: CommandCatalog(root: self),
                                                    environment: EnvironmentReader())
                arguments = expanded?.arguments ?? arguments
                // An older variable still works, once said: the kits and docs name only the rule's.
                for source in expanded?.sources ?? [] where source.variable != OptionVariable.name(for: source.flag) {
                    DeprecatedSpelling.warn(source.variable, instead: OptionVariable.name(for: source.flag))
                }
            }
            var command = try parseAsRoot(arguments)
            // RECEIPTQ_LOG_FORMAT and RECEIPTQ_LOG_LEVEL: refused here, before any log line.
            _ = try LogSetup.format(EnvironmentReader())
            _ = try LogSetup.level(EnvironmentReader())
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            ProcessEnd.now(0)
        } catch {
            let message = ExitStatus.isConfiguration(error) ? "\(error)" : Self.message(for: error)
            if let source = expanded?.source(namedIn: message) {
                reportConfiguration("\(source.variable) (for --\(source.flag)): \(message)")
            } else if ExitStatus.isConfiguration(error) {
                reportConfiguration(message)
            }
            let text = fullMessage(for: error)
            let status = exitCode(for: error)
            if status == .success {
                if !text.isEmpty { print(text) }
            } else if !text.isEmpty {
                FileHandle.standardError.write(Data("\(text)\n".utf8))
            }
            ProcessEnd.now(status.rawValue)
        }
    }

    private static func reportConfiguration(_ message: String) -> Never {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        ProcessEnd.now(ExitStatus.configuration)
    }
}

/// How a command's process ends: stdio flushed, then `_exit`, without the C library's exit
/// handlers.
///
/// Why: when `main` returns, threads of libpq (a pool thread closing its connection, the
/// listener) and of libcurl may still be inside OpenSSL, and `exit` runs OpenSSL's own exit
/// handler, which frees the locks under them. A worker stopped by SIGTERM crashed that way
/// (SIGSEGV in `pthread_rwlock_rdlock` on a `postgres-1` thread, after "worker stopped"; CI,
/// 2026-11-27). Nothing is lost by skipping the handlers: what must outlive the process is
/// committed in PostgreSQL before the command returns, log lines are flushed here, and the
/// kernel closes sockets and frees memory.
public enum ProcessEnd {
    public static func now(_ status: Int32) -> Never {
        fflush(nil)
        _exit(status)
    }
}
