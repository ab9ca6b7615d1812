import CommandSupport
import Foundation
import Postgres
import ReceiptQueue
import Synchronization

/// Carries out the plan's process and database faults at their times and records what was done:
/// which worker died, how long PostgreSQL took to come back, how soon another scheduler led.
final class ChaosInjector: Sendable {
    struct Record: Sendable, Codable {
        var atSeconds: Double
        var fault: String
        var detail: String
        var ok: Bool
    }

    let plan: ChaosPlan
    let processes: ChaosProcesses
    let workers: Int
    /// Shell command restarting PostgreSQL with `{mode}` in it; nil skips those faults.
    let postgresRestart: String?
    let pool: PostgresPool
    private let records = Mutex<[Record]>([])

    init(plan: ChaosPlan, processes: ChaosProcesses, workers: Int, postgresRestart: String?, pool: PostgresPool) {
        self.plan = plan
        self.processes = processes
        self.workers = workers
        self.postgresRestart = postgresRestart
        self.pool = pool
    }

    /// Plays the plan from `start`; returns the records once the last fault (and its restart) is done.
    func run(start: ContinuousClock.Instant) async -> [Record] {
        await withTaskGroup(of: Void.self) { group in
            for event in plan.events {
                try? await Task.sleep(until: start + event.at)
                let at = (ContinuousClock.now - start).seconds
                switch event.fault {
                case .killWorker(let restartAfter):
                    let role = ChaosProcesses.Role.worker(Int.random(in: 0..<workers))
                    let pid = processes.kill(role)
                    record(at, "worker SIGKILL", pid.map { "\(role) pid \($0), restarted after \(restartAfter)" } ?? "\(role) was not running", ok: pid != nil)
                    group.addTask { try? await Task.sleep(for: restartAfter); try? self.processes.start(role) }
                case .restartPostgres(let mode):
                    group.addTask { await self.restartPostgres(mode: mode, at: at) }
                case .killSchedulerLeader(let restartAfter):
                    group.addTask { await self.killSchedulerLeader(at: at, restartAfter: restartAfter) }
                }
            }
        }
        return records.withLock { $0.sorted { $0.atSeconds < $1.atSeconds } }
    }

    private func record(_ at: Double, _ fault: String, _ detail: String, ok: Bool) {
        records.withLock { $0.append(Record(atSeconds: at, fault: fault, detail: detail, ok: ok)) }
    }

    private func restartPostgres(mode: String, at: Double) async {
        guard let command = postgresRestart else {
            record(at, "PostgreSQL restart (\(mode))", "skipped: no --postgres-restart command", ok: false)
            return
        }
        let started = ContinuousClock.now
        let status = await ShellCommand.run(command.replacingOccurrences(of: "{mode}", with: mode),
                                            log: processes.logPath("postgres-restart.log"))
        let took = (ContinuousClock.now - started).seconds
        record(at, "PostgreSQL restart (\(mode))",
               status == 0 ? String(format: "back after %.1f s", took) : "command failed (\(status.map { "exit \($0)" } ?? "not started"); see postgres-restart.log)",
               ok: status == 0)
    }

    private func killSchedulerLeader(at: Double, restartAfter: Duration) async {
        guard let leader = await leaderPID(), let role = processes.role(ofPID: leader) else {
            record(at, "scheduler leader SIGKILL", "no leader found", ok: false)
            return
        }
        processes.kill(role)
        let killed = ContinuousClock.now
        var successor: Int32?
        while successor == nil, ContinuousClock.now - killed < .seconds(30) {
            try? await Task.sleep(for: .milliseconds(100))
            if let pid = await leaderPID(), pid != leader { successor = pid }
        }
        let took = (ContinuousClock.now - killed).seconds
        record(at, "scheduler leader SIGKILL",
               successor.map { String(format: "\(role) pid \(leader); pid \($0) led after %.1f s", took) } ?? "no standby took over within 30 s",
               ok: successor != nil)
        try? await Task.sleep(for: restartAfter)
        try? processes.start(role)
    }

    /// The operating-system pid of the leading scheduler: its session holds the advisory lock,
    /// and its application name is `receiptq-scheduler-<pid>`.
    private func leaderPID() async -> Int32? {
        let rows = try? await pool.query("""
            SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::int::oid AND l.objid = $2::int::oid
              AND l.objsubid = 2 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """, [SchedulerLeadership.lockKey.0, SchedulerLeadership.lockKey.1])
        guard let rows, rows.count > 0, let name = rows[0]["application_name"] else { return nil }
        return Int32(name.split(separator: "-").last ?? "")
    }
}
