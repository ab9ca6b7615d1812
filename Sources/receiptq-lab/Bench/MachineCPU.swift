import CommandSupport
import Foundation

/// Busy CPU time of the whole machine (all cores, every process), from the first line of
/// `/proc/stat`. Benchmarks that run client, server and PostgreSQL on one host report it per
/// request: unlike a rate, it barely changes when another process takes a share of the cores.
struct MachineCPU {
    /// Core-seconds this machine ran something (user, nice, system, irq, softirq) since boot.
    /// Steal (a hypervisor running another guest) is not ours and is left out.
    let busySeconds: Double

    /// Nil where `/proc/stat` cannot be read (not Linux).
    static func now() -> MachineCPU? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return nil }
        // user nice system idle iowait irq softirq steal: idle, iowait and steal are not our work.
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6]
        return MachineCPU(busySeconds: busy / Double(sysconf(Int32(_SC_CLK_TCK))))
    }
}
