import Foundation
import ReceiptQueueTesting

/// Apple's side of the fleet: the `receiptq-fake-appstore` executable as a child, as a backend's
/// integration test runs it — its own test CA (root written to `rootPath`), an App Store Connect
/// key it accepts (the workers sign with it), its notifications POSTed to the API. The attacks
/// reach its state only through its admin API (`FraudStore`).
final class FraudFake: Sendable {
    let productionURL: String
    let sandboxURL: String
    let serverAPIProductionURL: String
    let serverAPISandboxURL: String
    let adminURL: String
    /// The fake's root certificate (PEM), written by the child at start (`--root-out`).
    let rootPath: String
    private let process: SpawnedProcess

    private init(urls: [String: String], rootPath: String, process: SpawnedProcess) throws {
        func url(_ name: String) throws -> String {
            guard let value = urls[name] else { throw FraudError("the fake App Store did not print its \(name) URL") }
            return value
        }
        self.productionURL = try url("production")
        self.sandboxURL = try url("sandbox")
        self.serverAPIProductionURL = try url("server-api production")
        self.serverAPISandboxURL = try url("server-api sandbox")
        self.adminURL = try url("admin")
        self.rootPath = rootPath
        self.process = process
    }

    /// The child's command line: every flag the fleet relies on.
    /// `notificationURL` nil: notifications are kept, not sent (`GET /fake/admin/notifications`).
    static func arguments(latency: String, keyFile: String, notificationURL: String?, rootPath: String) -> [String] {
        ["--port", "0", "--latency", latency, "--api-latency", latency,
         "--bundle-id", FraudFleet.bundleID, "--app-apple-id", "\(FraudFleet.appAppleID)",
         "--api-key", keyFile, "--api-key-id", FraudFleet.keyID, "--issuer-id", FraudFleet.issuerID]
            + (notificationURL.map { ["--notification-url", $0, "--notification-retry-compression", "\(ChaosNotifications.retryCompression)"] } ?? [])
            + ["--root-out", rootPath]
    }

    /// Starts the child and returns once it has printed its URLs (its log: `fake-appstore.log`).
    static func start(logs: URL, latency: String, keyFile: String, notificationURL: String?) throws -> FraudFake {
        let rootPath = logs.appendingPathComponent("fake-root.pem").path
        try? FileManager.default.removeItem(atPath: rootPath)
        let output = Pipe()
        let process = try SpawnedProcess(
            executable: ReceiptQBinary.fakeAppStore.path,
            arguments: arguments(latency: latency, keyFile: keyFile, notificationURL: notificationURL, rootPath: rootPath),
            stdout: .descriptor(output.fileHandleForWriting.fileDescriptor),
            stderr: .file(logs.appendingPathComponent("fake-appstore.log").path))
        try output.fileHandleForWriting.close()   // the child holds the write end: EOF when it exits
        // The child prints `name: URL` lines, `admin` last, once it listens and its root is written.
        var text = ""
        while !(text.contains("admin: ") && text.hasSuffix("\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        var urls: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.range(of: ": ") else { continue }
            urls[String(line[..<colon.lowerBound])] = String(line[colon.upperBound...])
        }
        do {
            return try FraudFake(urls: urls, rootPath: rootPath, process: process)
        } catch {
            process.terminate()
            process.waitUntilExit()
            throw FraudError("\(error) (see \(logs.path)/fake-appstore.log)")
        }
    }

    var isRunning: Bool { process.isRunning }

    /// SIGTERM, SIGKILL after 10 s.
    func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        if await process.wait(timeout: .seconds(10)) == nil {
            process.signal(SIGKILL)
            _ = await process.wait()
        }
    }
}
