import FakeAppStore
import Foundation
import ReceiptQueue
import ReceiptQueueTesting
import Testing

extension EndToEnd {
    /// `receiptq worker` as a child process against this database and fake.
    func spawnWorker(name: String, concurrency: Int, appleTimeout: String = "15s", lease: String = "60s",
                     shutdownDeadline: String = "20s", adminPort: Int = 0, environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(arguments: [
            "worker", "--database-url", workerURL, "--name", name,
            "--concurrency", "\(concurrency)", "--bundle-ids", bundleID, "--app-apple-id", "1234567890", "--receipt-check", "off",
            "--apple-production-url", fake.productionURL, "--apple-sandbox-url", fake.sandboxURL,
            "--apple-timeout", appleTimeout, "--lease", lease, "--poll-interval", "500ms",
            "--shutdown-deadline", shutdownDeadline, "--admin-port", "\(adminPort)",
        ], environment: ["RECEIPTQ_LOG_LEVEL": "warning"].merging(environment) { $1 })
    }
}

/// The heavy end-to-end runs (worker processes, thousands of receipts, 30 s outages) take turns:
/// on a 2-core machine, running them side by side would measure the machine, not the product.
@Suite("End to end, one run at a time", .serialized)
struct EndToEndRuns {}

extension EndToEndRuns {
    @Suite("Worker processes: real latency, crashes, shutdown")
    struct WorkerProcessTests {
        @Test func tenThousandReceiptsAtAppleLatencyWithTwoWorkersGrantEachValidTransactionOnce() async throws {
            let e2e = try await EndToEnd.make(fake: FakeAppStoreConfiguration())   // uniform 3–6 s, like Apple
            var jobs: [NewJob] = []
            for n in 0..<9000 { jobs.append(NewJob(receiptData: EndToEnd.receipt([("p\(n)", "coins100")]), transactionID: "p\(n)", userID: "user\(n % 500)")) }
            for n in 0..<500 {   // the app re-sent a newer receipt holding an already submitted transaction
                jobs.append(NewJob(receiptData: EndToEnd.receipt([("p\(n)", "coins100"), ("later\(n)", "coins100")]), transactionID: "p\(n)", userID: "user\(n % 500)"))
            }
            for n in 0..<300 { jobs.append(NewJob(receiptData: EndToEnd.receipt([("f\(n)", "coins100")], forcedStatus: 21003), transactionID: "f\(n)", userID: "forger")) }
            for n in 0..<200 { jobs.append(NewJob(receiptData: EndToEnd.receipt([("s\(n)", "coins100")], environment: .sandbox), transactionID: "s\(n)", userID: "reviewer")) }
            let workers = try [e2e.spawnWorker(name: "w1", concurrency: 2500), e2e.spawnWorker(name: "w2", concurrency: 2500)]
            // As in production: on a loaded machine a few calls outlive --apple-timeout, and only
            // the scheduler puts timed-out jobs back (without it, a run beside other tests never drained).
            let scheduler = try ChildProcess(arguments: ["scheduler", "--interval", "500ms", "--database-url", e2e.schedulerURL])
            defer { (workers + [scheduler]).forEach { $0.kill() } }
            let started = ContinuousClock.now
            for chunk in stride(from: 0, to: jobs.count, by: 1000) {
                let accepted = try await e2e.queue.enqueue(Array(jobs[chunk..<min(chunk + 1000, jobs.count)]))
                #expect(accepted.allSatisfy { $0.created })
            }
            #expect(try await e2e.waitUntilDrained(timeout: .seconds(180)), "workers said: \(workers.map(\.stderr))")
            let seconds = (ContinuousClock.now - started).seconds
            print("10,000 receipts at 3–6 s through 2 workers: \(Int(seconds)) s, \(Int(10_000 / seconds)) receipts/s")

            #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs") == 10_000)                        // 0 lost
            #expect(try await e2e.states() == ["granted": 9200, "already_granted": 500, "rejected": 300])
            #expect(try await e2e.count("SELECT count(*) FROM receiptq.grants") == 9200)                        // distinct valid transactions
            #expect(try await e2e.count("""
                SELECT count(*) FROM receiptq.jobs j JOIN receiptq.grants g ON g.job_id = j.id WHERE j.state = 'granted'
                """) == 9200)                                                                                     // each grant ended its job
            let fakeStats = e2e.fake.stats.snapshot()
            let granted = try await e2e.pool.query("SELECT transaction_id FROM receiptq.grants").map { try $0.decode("transaction_id", as: String.self) }
            #expect(granted.allSatisfy { (fakeStats.validAnswersByTransactionID[$0] ?? 0) >= 1 })             // only what Apple called valid
            for worker in workers { worker.kill(SIGTERM) }
            for worker in workers { #expect(await worker.wait(timeout: .seconds(30)) == 0) }
            await e2e.shutdown()
        }

        @Test func workerKilledMidRunHasItsJobsFinishedByTheOtherWithoutDoubleGrants() async throws {
            let e2e = try await EndToEnd.make(fake: FakeAppStoreConfiguration(latency: FakeDurationRange(lower: .milliseconds(500), upper: .milliseconds(1500))))
            _ = try await e2e.queue.enqueue((0..<3000).map { NewJob(receiptData: EndToEnd.receipt([("k\($0)", "coins100")]), transactionID: "k\($0)", userID: "u\($0 % 100)") })
            let doomed = try e2e.spawnWorker(name: "doomed", concurrency: 1000, appleTimeout: "2s", lease: "10s")
            let survivor = try e2e.spawnWorker(name: "survivor", concurrency: 300, appleTimeout: "2s", lease: "10s")
            let scheduler = try ChildProcess(arguments: ["scheduler", "--interval", "500ms", "--database-url", e2e.schedulerURL])
            defer { doomed.kill(); survivor.kill(); scheduler.kill() }
            #expect(try await eventually(timeout: .seconds(30)) {
                try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE locked_by = 'doomed'") > 200
            })
            doomed.kill(SIGKILL)
            // A commit the dead worker had already sent may still land: count what it holds once
            // its sessions are gone.
            _ = await doomed.wait(timeout: .seconds(10))
            #expect(try await eventually(timeout: .seconds(10)) {
                try await e2e.count("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1",
                                    ["receiptq-worker-\(doomed.pid)"]) == 0
            })
            let heldByTheDead = try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE locked_by = 'doomed'")
            #expect(heldByTheDead > 0)
            #expect(try await e2e.waitUntilDrained(timeout: .seconds(120)), "survivor said: \(survivor.stderr)")
            #expect(try await e2e.states() == ["granted": 3000])
            #expect(try await e2e.count("SELECT count(*) FROM receiptq.grants") == 3000)
            #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE attempts > 1") >= heldByTheDead)   // verified again after the lease
            // A worker killed mid-write leaves no verdict without its event, no event without its verdict.
            #expect(try await e2e.count("SELECT count(*) FROM receiptq.events") == 3000)
            #expect(try await e2e.count("""
                SELECT count(*) FROM receiptq.jobs j WHERE (SELECT count(*) FROM receiptq.events e WHERE e.job_id = j.id) <> 1
                """) == 0)
            await e2e.shutdown()
        }

        @Test func sigtermUnderLoadExitsWithinTheDeadlineAndLeavesNothingVerifying() async throws {
            let e2e = try await EndToEnd.make(fake: FakeAppStoreConfiguration(latency: FakeDurationRange(lower: .seconds(1), upper: .seconds(8))))
            _ = try await e2e.queue.enqueue((0..<2000).map { NewJob(receiptData: EndToEnd.receipt([("g\($0)", "coins100")]), transactionID: "g\($0)", userID: "u") })
            let worker = try e2e.spawnWorker(name: "stopping", concurrency: 800, shutdownDeadline: "3s")
            defer { worker.kill() }
            #expect(try await eventually(timeout: .seconds(30)) { try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'verifying'") >= 500 })
            let signalled = ContinuousClock.now
            worker.kill(SIGTERM)
            let status = await worker.wait(timeout: .seconds(30))
            let took = ContinuousClock.now - signalled
            #expect(status == 0, "worker said: \(worker.stderr)")
            #expect(took < .seconds(8))   // 3 s deadline + writing out
            #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'verifying'") == 0)
            // Jobs it could not finish went back unharmed: queued, attempt given back.
            #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'queued' AND attempts > 0") == 0)
            #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'queued'") > 0)
            #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'granted'") > 0)
            await e2e.shutdown()
        }
    }

    @Suite("Apple outages: nothing rejected, no retry storm")
    struct OutageTests {
        @Test(arguments: [FakeOutage.Kind.refused, .html200])
        func thirtySecondOutageMidRunRejectsNothingAndKeepsRequestsPerReceiptLow(kind: FakeOutage.Kind) async throws {
            let e2e = try await EndToEnd.make(fake: FakeAppStoreConfiguration(
                latency: FakeDurationRange(lower: .milliseconds(100), upper: .milliseconds(300)),
                outages: [FakeOutage(start: .seconds(8), end: .seconds(38), kind: kind)]))
            let worker = e2e.startWorker(e2e.workerConfiguration(name: "w-\(kind.rawValue)", concurrency: 200), timeout: .seconds(2))
            // On a loaded machine some requests outlast the 2 s timeout (most just after Apple's
            // return, when the backlog goes out): the scheduler puts those back, as in production.
            let scheduler = try await e2e.startScheduler()
            // A steady stream of purchases before, during and after the outage.
            var receipts = 0
            let feedUntil = ContinuousClock.now + .seconds(45)
            while ContinuousClock.now < feedUntil {
                _ = try await e2e.queue.enqueue((0..<40).map { n in
                    let id = "o\(receipts + n)"
                    return NewJob(receiptData: EndToEnd.receipt([(id, "coins100")]), transactionID: id, userID: "u")
                })
                receipts += 40
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(try await e2e.waitUntilDrained(timeout: .seconds(60)))
            #expect(try await e2e.states() == ["granted": receipts])   // no receipt rejected or failed because of Apple
            let requests = e2e.fake.stats.snapshot().requests
            let perReceipt = Double(requests) / Double(receipts)
            print("outage \(kind.rawValue): \(receipts) receipts, \(requests) requests to Apple, \(perReceipt) per receipt")
            #expect(perReceipt <= 1.2)
            try await worker.stop()
            try await scheduler.stop()
            await e2e.shutdown()
        }
    }
}
