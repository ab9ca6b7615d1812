import Postgres
import Prometheus
import Synchronization

/// The process's database pools, read at each scrape (`PostgresPools`): connections in use and
/// idle, the pool's size, work waiting for a connection, and the time work waited. Labelled by
/// what each pool is for (`pool`), so an SRE sees which of a worker's pools is the bottleneck.
final class PoolMetrics: Sendable {
    private let registry: PrometheusCollectorRegistry
    /// The totals already added to each counter, by pool: a counter only goes up, so it gets the
    /// difference (and nothing when a pool was shut down and its total fell).
    private let counted = Mutex<[String: (acquired: Int, waitSeconds: Double)]>([:])

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    func update() {
        for (name, statistics) in PostgresPools.statistics() {
            gauge("receiptq_db_pool_connections", "Database connections of the pool, by state: in_use (running work) or idle (open, free).",
                  [("pool", name), ("state", "in_use")]).set(Double(statistics.inUse))
            gauge("receiptq_db_pool_connections", "Database connections of the pool, by state: in_use (running work) or idle (open, free).",
                  [("pool", name), ("state", "idle")]).set(Double(max(0, statistics.open - statistics.inUse)))
            gauge("receiptq_db_pool_size", "Connections the pool may hold.", [("pool", name)]).set(Double(statistics.size))
            gauge("receiptq_db_pool_waiting", "Work waiting now for a free connection of the pool.", [("pool", name)]).set(Double(statistics.waiting))
            let (acquired, waited) = counted.withLock { counted -> (Int, Double) in
                let before = counted[name] ?? (0, 0)
                counted[name] = (max(before.acquired, statistics.acquired), max(before.waitSeconds, statistics.waitSeconds))
                return (max(0, statistics.acquired - before.acquired), max(0, statistics.waitSeconds - before.waitSeconds))
            }
            counter("receiptq_db_pool_acquisitions_total", "Work that got a connection of the pool.", name).increment(by: Int64(acquired))
            counter("receiptq_db_pool_wait_seconds_total", "Seconds work waited for a connection of the pool, summed; divided by acquisitions, the mean wait.",
                    name).increment(by: waited)
        }
    }

    private func gauge(_ name: String, _ help: String, _ labels: [(String, String)]) -> Gauge {
        registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }

    private func counter(_ name: String, _ help: String, _ pool: String) -> Counter {
        registry.makeCounter(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: [("pool", pool)])
    }
}
