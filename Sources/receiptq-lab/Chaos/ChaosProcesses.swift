import CommandSupport
import Foundation
import ReceiptQueueTesting

/// The system under test as child processes of `receiptq-lab chaos`, each started from the
/// product binary (`receiptq`) as an operator would start them: the API, the workers and two schedulers. Kills
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
    private var children: [Role: SpawnedProcess] = [:]
    private var killed: Set<Int32> = []
    private var crashes: [Crash] = []
    private let started = ContinuousClock.now
    private let executable = ReceiptQBinary.url.path
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
        let log = logPath("\(role).log")
        let process = try SpawnedProcess(executable: executable, arguments: arguments(role), environment: environment,
                                         stdout: .file(log), stderr: .file(log))
        lock.withLock { children[role] = process }
    }

    /// A file in the log folder; children append to it across restarts.
    func logPath(_ name: String) -> String {
        logDirectory.appendingPathComponent(name).path
    }

    func pid(of role: Role) -> Int32? {
        lock.withLock { children[role].flatMap { $0.isRunning ? $0.pid : nil } }
    }

    func role(ofPID pid: Int32) -> Role? {
        lock.withLock { children.first { $0.value.pid == pid }?.key }
    }

    /// Sends `signal` to `role` and records the exit as intended. Returns the pid, or nil when it
    /// was not running.
    @discardableResult
    func kill(_ role: Role, signal: Int32 = SIGKILL) -> Int32? {
        lock.withLock {
            guard let process = children[role], process.isRunning else { return nil }
            killed.insert(process.pid)
            process.signal(signal)
            return process.pid
        }
    }

    /// Children that exited without being killed: recorded as crashes and started again.
    func repairCrashes() {
        let crashed: [Role] = lock.withLock {
            var found: [Role] = []
            for (role, process) in children where !process.isRunning && !killed.contains(process.pid) {
                crashes.append(Crash(role: "\(role)", status: process.terminationStatus ?? -1,
                                     atSeconds: (ContinuousClock.now - started).seconds))
                killed.insert(process.pid)
                found.append(role)
            }
            return found
        }
        for role in crashed { try? start(role) }
    }

    var crashReports: [Crash] { lock.withLock { crashes } }

    /// Whether every role is running (killed ones restarted).
    var allRunning: Bool { lock.withLock { children.values.allSatisfy(\.isRunning) } }

    /// Runs `body`; when it throws, stops every child first, so that a failed run leaves no
    /// worker or scheduler behind to hold the port, the database or the CPU of the next one.
    func stoppingAllOnError<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            await stopAll(grace: .seconds(5))
            throw error
        }
    }

    /// SIGTERM to everyone, SIGKILL after `grace`.
    func stopAll(grace: Duration = .seconds(10)) async {
        let all: [SpawnedProcess] = lock.withLock {
            let running = children.values.filter(\.isRunning)
            for process in running { killed.insert(process.pid) }
            return running
        }
        for process in all { process.terminate() }
        let deadline = ContinuousClock.now + grace
        while all.contains(where: \.isRunning), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(100))
        }
        for process in all { process.signal(SIGKILL) }
    }
}
