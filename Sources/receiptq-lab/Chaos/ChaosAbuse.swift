import CommandSupport
import Foundation
import HTTPClient
import Synchronization

/// The abusive part of the traffic, while the window lasts: waves of slowloris connections that
/// dribble a request head one byte every 2 s, bodies over the size limit, and garbage that is
/// not JSON. The API must answer the last two with 413 and 400, cut the slow ones at its idle
/// timeout, and keep serving the well-behaved load meanwhile.
final class ChaosAbuse: Sendable {
    struct Figures: Sendable, Codable {
        var slowConnections = 0
        var slowCutByServer = 0
        var slowLongestHeldSeconds = 0.0
        var oversizeSent = 0
        var garbageSent = 0
        /// Answers to oversize and garbage bodies, by HTTP status (0: no answer).
        var answers: [String: Int] = [:]
        /// Oversize or garbage requests that got anything but their 413 / 400.
        var unexpectedAnswers = 0
    }

    let host: String
    let port: Int
    let token: String
    let http: HTTPClient
    let slowPerWave: Int

    private let figures = Mutex(Figures())

    init(host: String, port: Int, token: String, http: HTTPClient, slowPerWave: Int = 200) {
        self.host = host
        self.port = port
        self.token = token
        self.http = http
        self.slowPerWave = slowPerWave
    }

    func run(until end: ContinuousClock.Instant) async -> Figures {
        async let slow: Void = slowloris(until: end)
        async let oversize: Void = repeatedly(every: .milliseconds(500), until: end) { await self.postOversize() }
        async let garbage: Void = repeatedly(every: .milliseconds(100), until: end) { await self.postGarbage() }
        _ = await (slow, oversize, garbage)
        return figures.withLock { $0 }
    }

    private func repeatedly(every interval: Duration, until end: ContinuousClock.Instant, _ body: @escaping @Sendable () async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            while ContinuousClock.now < end {
                group.addTask { await body() }
                try? await Task.sleep(for: interval)
            }
        }
    }

    private func postOversize() async {
        // 700 KiB of valid base64: over the 512 KiB receipt limit.
        let receipt = String(repeating: "QUFB", count: 700 * 256)
        let body = Array(#"{"receipt_data":"\#(receipt)","transaction_id":"1","user_id":"abuser"}"#.utf8)
        figures.withLock { $0.oversizeSent += 1 }
        await record(expecting: 413, body: body)
    }

    private func postGarbage() async {
        var body = (0..<Int.random(in: 1...2_000)).map { _ in UInt8.random(in: 0...255) }
        if Bool.random() { body = Array(#"{"receipt_data": ["#.utf8) + body }
        figures.withLock { $0.garbageSent += 1 }
        await record(expecting: 400, body: body)
    }

    private func record(expecting expected: Int, body: [UInt8]) async {
        let headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        let status = (try? await http.post(url: "http://\(host):\(port)/v1/receipts", headers: headers, body: body, timeout: .seconds(10)))?.status ?? 0
        figures.withLock {
            $0.answers["\(status)", default: 0] += 1
            // 503 is allowed only for bodies that need the database; these never reach it.
            if status != expected { $0.unexpectedAnswers += 1 }
        }
    }

    /// Waves of slow connections, each held until the server cuts it (or 60 s pass).
    private func slowloris(until end: ContinuousClock.Instant) async {
        while ContinuousClock.now < end {
            let wave = await SlowlorisWave.run(host: host, port: port, connections: slowPerWave, limit: .seconds(60))
            figures.withLock {
                $0.slowConnections += wave.opened
                $0.slowCutByServer += wave.cut
                $0.slowLongestHeldSeconds = max($0.slowLongestHeldSeconds, wave.longestHeldSeconds)
            }
        }
    }
}
