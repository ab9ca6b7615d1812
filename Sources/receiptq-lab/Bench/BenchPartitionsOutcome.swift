import Foundation

/// What `bench partitions` measured, per layout, and what the partitioned layout had to give up.
struct BenchPartitionsOutcome: Codable, Sendable {
    struct Detach: Codable, Sendable {
        let day: Int
        let partition: String
        /// Rows the table lost (counted before and after).
        let removedRows: Int
        /// Rows with a longer retention copied out first (`receiptq.jobs_retained`).
        let retainedRows: Int
        let retainSeconds: Double
        let detachSeconds: Double
        let dropSeconds: Double
    }

    struct Prune: Codable, Sendable {
        /// The day the scheduler's DELETE pruned (0: the oldest).
        let deleteDay: Int
        let deletedRows: Int
        let deleteSeconds: Double
        var detach: Detach?
    }

    struct Layout: Codable, Sendable {
        let name: String
        let rows: Int
        let partitions: Int
        let loadSeconds: Double
        let indexSeconds: Double
        let vacuumSeconds: Double
        let totalBytes: Int64
        let indexBytes: Int64
        let probes: [PlanProbe.Figures]
        /// Queued rows the worker's claim found, draining every kind.
        let claimed: Int
        let claimSeconds: Double
        let prune: Prune
    }

    struct ChangedConstraint: Codable, Sendable {
        let name: String
        let before: String
        let after: String
    }

    let rows: Int
    let days: Int
    let queued: Int
    let verifying: Int
    let users: Int
    let layouts: [Layout]
    let changedConstraints: [ChangedConstraint]

    init(plan: PartitionLoadPlan, layouts: [Layout], changedConstraints: [ChangedConstraint]) {
        rows = plan.rows; days = plan.days; queued = plan.queued; verifying = plan.verifying; users = plan.users
        self.layouts = layouts
        self.changedConstraints = changedConstraints
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    var text: String {
        func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
        func gb(_ bytes: Int64) -> String { f(Double(bytes) / 1_073_741_824, 2) + " GB" }
        var lines = ["bench partitions: \(rows) jobs over \(days) days, \(queued) queued + \(verifying) verifying in the newest, \(users) users"]
        for layout in layouts {
            lines += [
                "",
                "\(layout.name)\(layout.partitions > 0 ? " (\(layout.partitions) partitions)" : ""):",
                "  load \(f(layout.loadSeconds)) s (\(Int(Double(layout.rows) / max(layout.loadSeconds, 1e-9))) rows/s), indexes \(f(layout.indexSeconds)) s, "
                    + "VACUUM (ANALYZE) \(f(layout.vacuumSeconds)) s",
                "  size \(gb(layout.totalBytes)) (indexes \(gb(layout.indexBytes))) = \(layout.totalBytes / Int64(max(layout.rows, 1))) bytes/row",
                "  statement                          ms      plan ms   hit      read     partitions  rows",
            ]
            for probe in layout.probes {
                let partitions = layout.partitions > 0 ? "\(probe.partitionsScanned)/\(probe.partitionsPlanned)" : "-"
                lines.append("  " + [probe.name.padding(toLength: 34, withPad: " ", startingAt: 0),
                                     f(probe.milliseconds, 2).padding(toLength: 7, withPad: " ", startingAt: 0),
                                     f(probe.planningMilliseconds, 2).padding(toLength: 9, withPad: " ", startingAt: 0),
                                     String(probe.sharedHit).padding(toLength: 8, withPad: " ", startingAt: 0),
                                     String(probe.sharedRead).padding(toLength: 8, withPad: " ", startingAt: 0),
                                     partitions.padding(toLength: 11, withPad: " ", startingAt: 0),
                                     String(probe.rows)].joined(separator: " "))
            }
            lines.append("  claim drain: \(layout.claimed) queued jobs claimed in \(f(layout.claimSeconds, 2)) s (ClaimBatch, 1000 a claim)")
            lines.append("  prune day \(layout.prune.deleteDay) by DELETE (PruneFinishedJobs, 10,000 a statement): "
                + "\(layout.prune.deletedRows) rows in \(f(layout.prune.deleteSeconds, 2)) s")
            if let detach = layout.prune.detach {
                lines.append("  prune day \(detach.day) (\(detach.partition)) by partition: \(detach.retainedRows) long-retention rows copied out in \(f(detach.retainSeconds, 2)) s, "
                    + "DETACH \(f(detach.detachSeconds * 1000, 1)) ms, DROP \(f(detach.dropSeconds * 1000, 1)) ms; \(detach.removedRows) rows gone")
            }
        }
        lines += ["", "constraints that had to take the partition key (unique per created_at, no longer across the table):"]
        for change in changedConstraints {
            lines.append("  \(change.name): \(change.after)")
        }
        return lines.joined(separator: "\n")
    }
}
