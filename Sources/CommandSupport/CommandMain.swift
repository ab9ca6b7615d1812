import ArgumentParser
import Foundation
import Postgres

/// The version `--version` prints.
public enum ReceiptQueueVersion {
    public static let current = "0.10.0"
}

/// Exit statuses a supervisor can act on (sysexits.h): a configuration that cannot work exits 78
/// (EX_CONFIG), so systemd's `RestartPreventExitStatus=78` stops restarting a process that would
/// only fail again; bad command-line usage exits 64 (EX_USAGE); anything else 1.
public enum ExitStatus {
    public static let configuration: Int32 = 78

    /// Whether `error` means "fix the configuration": our own `ConfigurationError`, a database
    /// URL that does not parse, or PostgreSQL refusing the credentials (SQLSTATE class 28).
    public static func isConfiguration(_ error: any Error) -> Bool {
        if error is ConfigurationError { return true }
        if let error = error as? PostgresError {
            return error.kind == .invalidConfiguration || (error.sqlState?.hasPrefix("28") ?? false)
                || error.message.contains("password authentication failed")
        }
        return false
    }
}

extension AsyncParsableCommand {
    /// Parses, runs, and exits with the status of `ExitStatus`. Call from `static func main()`.
    public static func runWithExitStatus() async {
        do {
            var command = try parseAsRoot()
            _ = try LogSetup.format(EnvironmentReader())   // RECEIPTQ_LOG_FORMAT: refused here, before any log line
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch where ExitStatus.isConfiguration(error) {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            Foundation.exit(ExitStatus.configuration)
        } catch {
            exit(withError: error)
        }
    }
}
