import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// `receiptq roles create-login`: a database login for one process, a member of that process's
/// group role (migration 0011), so each process runs with exactly its own privileges. Run as the
/// owner that migrates (it needs CREATEROLE). The password comes from a file, never the command
/// line (other users see that in ps), and reaches the server only as a SCRAM verifier.
struct RolesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roles",
        abstract: "Per-process database logins: api, worker, scheduler, readonly (run as the owner that migrates).",
        subcommands: [CreateLoginCommand.self])

    struct CreateLoginCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create-login",
            abstract: "Create a login in one process's role, or set its password and make sure it is in the role.",
            discussion: """
                Example: receiptq roles create-login --role worker --login receiptq_worker_a --password-file /run/secrets/worker-db
                Then give the worker DATABASE_URL=postgresql://receiptq_worker_a:<password>@host/db.
                """)

        @OptionGroup var database: DatabaseOptions

        @Option(help: "The process the login is for: api, worker, scheduler or readonly.")
        var role: ProcessRole

        @Option(help: "The login's name: lowercase letters, digits and _, e.g. receiptq_worker_a.")
        var login: String

        @Option(help: "File holding the password (its first line; /dev/stdin reads a pipe). Without it the login has no password (certificate or peer authentication).")
        var passwordFile: String?

        func validate() throws {
            guard login.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                throw ValidationError("--login must be 1-63 lowercase letters, digits or _, starting with a letter or _")
            }
        }

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.roles", defaultLevel: .error)
            var password: String?
            if let passwordFile {
                // Read to the end, not by the file's size: /dev/stdin (a pipe) has none.
                guard let data = try? FileHandle(forReadingAtPath: passwordFile)?.readToEnd(),
                      let first = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first, !first.isEmpty else {
                    throw ConfigurationError("--password-file: cannot read a password from \(passwordFile)")
                }
                password = String(first)
            }
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-roles"), size: 1)
            defer { pool.shutdown() }
            let (login, role, secret) = (self.login, self.role, password)
            let result = try await pool.withConnection { try CreateLogin.run(login: login, password: secret, role: role, on: $0) }
            print("\(result == .created ? "created" : "updated") login \(login) in \(role.groupName)"
                  + (secret == nil ? " (no password: certificate or peer authentication)" : ""))
        }
    }
}

extension ProcessRole: ExpressibleByArgument {}
