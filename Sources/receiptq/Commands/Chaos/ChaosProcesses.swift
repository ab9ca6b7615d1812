import Foundation

/// The system under test as child processes of `receiptq chaos`, each started from this very
/// executable as an operator would start them: the API, the workers and two schedulers. Kills
/// are recorded as expected; any other exit is a crash the run reports (and repairs, so the run
/// goes on). Output goes to one log file per role, appended across restarts.
///
/// State lives behind `lock`; every method may be called from any task.
final class ChaosProcesses: @unchecked Sendable {
    enum Role: Hashable, Sendable, CustomStringConvertible {
        case api, worker(Int), scheduler(Int)

        var description: String {
            switch self {
            case .api: "api"
            case .worker(let n): "worker-\(n)"
            case .scheduler(let n): "scheduler-\(n)"
            }
        }
    }

    struct Crash: Sendable, Codable {
        var role: String
        var status: Int32
        var atSeconds: Double
    }

    private let lock = NSLock()
    private var children: [Role: Process] = [:]
    private var killed: Set<Int32> = []
    private var crashes: [Crash] = []
    private let started = ContinuousClock.now
    private let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let logDirectory: URL
    private let arguments: @Sendable (Role) -> [String]
    private let environment: [String: String]

    init(logDirectory: URL, environment: [String: String], arguments: @escaping @Sendable (Role) -> [String]) throws {
        self.logDirectory = logDirectory
        self.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        self.environment = merged
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
    }

    /// Starts `role` (again).
    func start(_ role: Role) throws {
        let handle = try appendingLog("\(role).log")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments(role)
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? handle.close()
        lock.withLock { children[role] = process }
    }

    /// A handle that appends to `name` in the log folder (created when missing).
    func appendingLog(_ name: String) throws -> FileHandle {
        let log = logDirectory.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: log.path) {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        return handle
    }

    func pid(of role: Role) -> Int32? {
        lock.withLock { children[role].flatMap { $0.isRunning ? $0.processIdentifier : nil } }
    }

    func role(ofPID pid: Int32) -> Role? {
        lock.withLock { children.first { $0.value.processIdentifier == pid }?.key }
    }

    /// Sends `signal` to `role` and records the exit as intended. Returns the pid, or nil when it
    /// was not running.
    @discardableResult
    func kill(_ role: Role, signal: Int32 = SIGKILL) -> Int32? {
        lock.withLock {
            guard let process = children[role], process.isRunning else { return nil }
            killed.insert(process.processIdentifier)
            Foundation.kill(process.processIdentifier, signal)
            return process.processIdentifier
        }
    }

    /// Children that exited without being killed: recorded as crashes and started again.
    func repairCrashes() {
        let crashed: [Role] = lock.withLock {
            var found: [Role] = []
            for (role, process) in children where !process.isRunning && !killed.contains(process.processIdentifier) {
                crashes.append(Crash(role: "\(role)", status: process.terminationStatus,
                                     atSeconds: (ContinuousClock.now - started).seconds))
                killed.insert(process.processIdentifier)
                found.append(role)
            }
            return found
        }
        for role in crashed { try? start(role) }
    }

    var crashReports: [Crash] { lock.withLock { crashes } }

    /// Whether every role is running (killed ones restarted).
    var allRunning: Bool { lock.withLock { children.values.allSatisfy(\.isRunning) } }

    /// SIGTERM to everyone, SIGKILL after `grace`.
    func stopAll(grace: Duration = .seconds(10)) async {
        let all: [Process] = lock.withLock {
            let running = children.values.filter(\.isRunning)
            for process in running { killed.insert(process.processIdentifier) }
            return running
        }
        for process in all { process.terminate() }
        let deadline = ContinuousClock.now + grace
        while all.contains(where: \.isRunning), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(100))
        }
        for process in all where process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }
}
