import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// Test support, hidden: claims jobs, prints how many, then hangs until killed — a worker that
/// dies while holding leases. Tests SIGKILL it and check the scheduler rescues its jobs.
struct ClaimAndHang: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "claim-and-hang", abstract: "Test support: claim jobs, print how many, then hang until killed.")

    @OptionGroup var database: DatabaseOptions
    @Option var limit = 100
    @Option var lease: Duration = .seconds(2)
    @Option var worker = "hanging-worker"

    func run() async throws {
        let config = try database.configuration(applicationName: "receiptq-test-claimer")
        let queue = JobQueue(pool: PostgresPool(configuration: config, size: 1))
        let leases = try await queue.claim(limit: limit, worker: worker, lease: lease)
        FileHandle.standardOutput.write(Data("claimed \(leases.count)\n".utf8))  // unbuffered: the test waits for it
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
