import Foundation

/// The executables built next to the tests and the lab, run as real child processes (workers and
/// schedulers die by SIGKILL in tests; only a separate process can).
public enum ReceiptQBinary {
    /// The product, `receiptq`: `RECEIPTQ_BIN` when set (Deploy/dev sets it), else found beside
    /// the running executable (a test bundle or `receiptq-lab`).
    public static var url: URL { locate("receiptq", override: "RECEIPTQ_BIN") }

    /// The lab, `receiptq-lab` (benchmarks, chaos, demo, test-only commands): `RECEIPTQ_LAB_BIN`
    /// when set, else found beside the running executable.
    public static var lab: URL { locate("receiptq-lab", override: "RECEIPTQ_LAB_BIN") }

    /// The fake App Store, `receiptq-fake-appstore` (test equipment, apart from the product):
    /// `RECEIPTQ_FAKE_APPSTORE_BIN` when set, else found beside the running executable.
    public static var fakeAppStore: URL { locate("receiptq-fake-appstore", override: "RECEIPTQ_FAKE_APPSTORE_BIN") }

    private static func locate(_ name: String, override variable: String) -> URL {
        if let path = ProcessInfo.processInfo.environment[variable] {
            return URL(fileURLWithPath: path)
        }
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = running.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return running.deletingLastPathComponent().appendingPathComponent(name)
    }
}

/// A running `receiptq` child process with its output collected to files (no pipe can fill up
/// and block it).
public final class ChildProcess: Sendable {
    public let process: SpawnedProcess
    private let stdoutURL: URL
    private let stderrURL: URL

    /// `removing`: variables of this process the child must not see (`RECEIPTQ_MIGRATIONS`, to
    /// run the binary as it is installed).
    public init(_ executable: URL = ReceiptQBinary.url, arguments: [String], environment: [String: String] = [:],
                removing: [String] = []) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("receiptq-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        stdoutURL = directory.appendingPathComponent("stdout")
        stderrURL = directory.appendingPathComponent("stderr")
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "DATABASE_URL")  // children get exactly the database the test names
        for name in removing { env.removeValue(forKey: name) }
        env.merge(environment) { $1 }
        process = try SpawnedProcess(executable: executable.path, arguments: arguments, environment: env,
                                     stdout: .file(stdoutURL.path), stderr: .file(stderrURL.path))
    }

    public var pid: Int32 { process.pid }
    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    public func kill(_ signal: Int32 = SIGKILL) { process.signal(signal) }

    /// Waits for exit up to `timeout`; returns the exit status, or nil (and kills it) on timeout.
    @discardableResult
    public func wait(timeout: Duration) async -> Int32? {
        if let status = await process.wait(timeout: timeout) { return status }
        kill()
        await process.wait(timeout: .seconds(5))
        return nil
    }

    /// Runs to completion (killed after `timeout`).
    public static func run(_ executable: URL = ReceiptQBinary.url, arguments: [String], environment: [String: String] = [:],
                           removing: [String] = [], timeout: Duration = .seconds(30)) async throws -> (status: Int32?, stdout: String, stderr: String) {
        let child = try ChildProcess(executable, arguments: arguments, environment: environment, removing: removing)
        let status = await child.wait(timeout: timeout)
        return (status, child.stdout, child.stderr)
    }

    deinit { process.signal(SIGKILL) }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
public func eventually(timeout: Duration = .seconds(10), every interval: Duration = .milliseconds(50),
                       _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
