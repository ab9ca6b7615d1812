import Foundation
import Postgres

#if canImport(Glibc)
import Glibc
#endif

/// Sends a phase's receipts to one verifier: the other worker process is paused (SIGSTOP) while
/// it holds nothing — no lease on a job or a notification, no statement or transaction open —
/// so every receipt of the phase is claimed by the worker under test, and resumed (SIGCONT)
/// after. Paused is not dead: the run's crash check still sees it as running.
struct FraudPin {
    let fleet: FraudFleet
    /// The scratch database's owner, who sees every session.
    let pool: PostgresPool

    /// Pauses every worker but `verifier`'s. Returns false when the other could not be caught
    /// idle within `within` (it is left running; the phase then proves less).
    func only(_ verifier: FraudFleet.Verifier, within: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + within
        for other in FraudFleet.Verifier.allCases where other != verifier {
            guard let pid = fleet.processes.pid(of: other.role) else { return false }
            var paused = false
            while !paused && ContinuousClock.now < deadline {
                kill(pid, SIGSTOP)
                try? await Task.sleep(for: .milliseconds(100))   // a commit already sent lands
                if (try? await holdsNothing(other, pid: pid)) == true {
                    paused = true
                } else {
                    kill(pid, SIGCONT)
                    try? await Task.sleep(for: .milliseconds(150))
                }
            }
            if !paused { return false }
        }
        return true
    }

    /// Resumes every worker.
    func resumeAll() {
        for verifier in FraudFleet.Verifier.allCases {
            if let pid = fleet.processes.pid(of: verifier.role) { kill(pid, SIGCONT) }
        }
    }

    private func holdsNothing(_ verifier: FraudFleet.Verifier, pid: Int32) async throws -> Bool {
        // The worker names its sessions receiptq-worker-<pid>; idle ones hold no lock and no snapshot.
        // A history sync mid-walk counts as busy: frozen, its page would outlive its lease and be redone.
        let row = try await pool.query("""
            SELECT (SELECT count(*) FROM receiptq.jobs WHERE state = 'verifying' AND locked_by = $1)
                 + (SELECT count(*) FROM receiptq.notifications WHERE state = 'applying' AND locked_by = $1)
                 + (SELECT count(*) FROM receiptq.history_syncs WHERE state = 'syncing' AND locked_by = $1)
                 + (SELECT count(*) FROM pg_stat_activity WHERE application_name = $2 AND state <> 'idle') AS busy
            """, [verifier.workerName, "receiptq-worker-\(pid)"])[0]
        return try row.decode("busy", as: Int.self) == 0
    }
}
