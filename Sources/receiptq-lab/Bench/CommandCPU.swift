import CommandSupport
import Foundation

/// CPU time of every process with one command name (e.g. all `postgres` processes), from
/// `/proc/<pid>/stat`, optionally only those whose command line contains a word. PostgreSQL
/// backends show their database in their command line (`postgres: user db host(port) state`),
/// so `bench api` counts the backends of its own scratch database and not those of whoever
/// else uses the cluster. Shared background processes (WAL writer, checkpointer) are not
/// counted, and processes that exited in between are missed: a lower bound (the bench's
/// backends live as long as its pool).
enum CommandCPU {
    /// Total user + system seconds of the matching processes; nil without `/proc`.
    static func seconds(of name: String, commandLineContaining word: String? = nil) -> Double? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var total = 0.0
        for entry in entries where entry.first?.isNumber == true {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
                  stat[stat.index(after: open)..<close] == name else { continue }
            if let word {
                guard let commandLine = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                      String(decoding: commandLine, as: UTF8.self).contains(word) else { continue }
            }
            // Fields after the command name: state is field 3; utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) { total += (user + system) / ticks }
        }
        return total
    }
}
