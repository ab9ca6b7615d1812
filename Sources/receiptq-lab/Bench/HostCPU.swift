import Foundation

/// CPU time spent on this machine, read from /proc: all of it, and PostgreSQL's share (every
/// process named `postgres`, when the database runs here). A bench reads it before and after its
/// measured run to say what one unit of work costs the whole machine — the worker, the database
/// and the bench's own client together — and so what rate the machine can carry at most
/// (cores ÷ CPU per unit), whatever a single process's figures say.
struct HostCPU {
    /// Busy CPU seconds of the whole machine since boot (user, nice, system, irq, softirq, steal).
    var busySeconds: Double
    /// CPU seconds of the `postgres` processes alive now (backends that exited are not counted).
    var postgresSeconds: Double

    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    static func read() -> HostCPU {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var busy = 0.0
        if let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
           let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) {
            let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            // user nice system idle iowait irq softirq steal (guest time is inside user already)
            if fields.count >= 8 { busy = (fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]) / ticks }
        }
        var postgres = 0.0
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in processes {
            guard let pid = Int32(entry),
                  let name = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                  name.trimmingCharacters(in: .whitespacesAndNewlines) == "postgres" else { continue }
            postgres += ProcessUsage.read(pid: pid).cpuSeconds
        }
        return HostCPU(busySeconds: busy, postgresSeconds: postgres)
    }
}
