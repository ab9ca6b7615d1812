import Foundation
import Prometheus
import Synchronization

/// The process's own figures, read from /proc at each scrape: open descriptors against the
/// limit (running out shows up as connect failures, not as an error of its own), resident
/// memory, CPU time and start time. Named as every Prometheus client library names them
/// (`process_*`, the CPU time a `_total` counter), so stock dashboards and rules read them.
final class ProcessMetrics: Sendable {
    private let openFDs: Gauge
    private let maxFDs: Gauge
    private let residentBytes: Gauge
    private let cpuSeconds: Counter
    /// The CPU seconds already added to `cpuSeconds` (a counter only goes up: it gets the difference).
    private let cpuCounted = Mutex(0.0)
    private let startTime: Gauge

    init(registry: PrometheusCollectorRegistry) {
        func gauge(_ name: String, _ help: String) -> Gauge {
            registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help))
        }
        openFDs = gauge("process_open_fds", "Open file descriptors (sockets included).")
        maxFDs = gauge("process_max_fds", "The soft limit on open file descriptors.")
        residentBytes = gauge("process_resident_memory_bytes", "Resident memory, in bytes.")
        cpuSeconds = registry.makeCounter(descriptor: MetricNameDescriptor(
            metricName: "process_cpu_seconds_total", unitName: "", helpText: "User and system CPU time used since the process started, in seconds."))
        startTime = gauge("process_start_time_seconds", "When the process started, in seconds since 1970.")
        // Which release, and which schema, this process is: 1 always, the facts in its labels.
        registry.makeGauge(descriptor: MetricNameDescriptor(
            metricName: "receiptq_build_info", unitName: "",
            helpText: "1, labelled with this process's release (version) and the schema version it installs and expects (schema)."),
                           labels: [("version", ReceiptQueueVersion.current), ("schema", String(ReceiptQueueVersion.schema))]).set(1.0)
    }

    /// Reads /proc now (Linux; elsewhere the gauges keep their last values).
    func update() {
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            openFDs.set(Double(entries.count))
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { maxFDs.set(Double(limit.rlim_cur)) }
        let page = Double(sysconf(Int32(_SC_PAGESIZE)))
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
           let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) {
            residentBytes.set(pages * page)
        }
        // /proc/self/stat: fields after the command name (which may hold spaces) start at ")".
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // fields[0] is field 3 (state): utime is field 14, stime 15, starttime 22.
            if fields.count > 19, let user = Double(fields[11]), let system = Double(fields[12]), let started = Double(fields[19]) {
                let total = (user + system) / ticks
                let added = cpuCounted.withLock { counted -> Double in
                    let added = max(0, total - counted)
                    counted += added
                    return added
                }
                if added > 0 { cpuSeconds.increment(by: added) }
                if let boot = Self.bootTime { startTime.set(boot + started / ticks) }
            }
        }
    }

    /// `btime` of /proc/stat: when the machine booted, in seconds since 1970.
    private static let bootTime: Double? = {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        return stat.split(separator: "\n").first { $0.hasPrefix("btime ") }.flatMap { Double($0.dropFirst(6)) }
    }()
}
