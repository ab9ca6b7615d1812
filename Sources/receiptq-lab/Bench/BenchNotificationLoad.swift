import Foundation
import HTTPClient
import ReceiptQueue   // Duration.seconds

/// Posts pre-signed notifications to `POST /v1/apple/notifications` through the project's libcurl
/// client, as Apple would (no bearer token), in one of two shapes:
/// - closed loop: `connections` clients, each posting its next notification as soon as the
///   previous one is answered, until the bodies run out or `duration` ends — the throughput
///   ceiling, where answer time is connections ÷ throughput by Little's law;
/// - open loop: one notification every 1/`rate` s whatever the answers do (Apple does not wait
///   for us), answer time counted from when it was due — so a server falling behind shows as
///   latency instead of hiding it (no coordinated omission).
struct BenchNotificationLoad {
    struct Figures: Codable, APILoadFigures {
        var shape: String
        var accepted: Int
        var failed: Int
        var acceptedPerSecond: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var maxMilliseconds: Double
        /// Notifications per commit the API reported (group commit's mean batch; 1 without it).
        var meanBatch: Double = 0
        /// CPU milliseconds per accepted notification (`APILoadFigures`).
        var benchProcessCPUMilliseconds: Double = 0
        var apiChildCPUMilliseconds: Double = 0
        var postgresCPUMilliseconds: Double = 0
        var machineCPUMilliseconds: Double = 0
    }

    let url: String
    let connections: Int

    func closedLoop(_ bodies: [[UInt8]], for duration: Duration) async -> Figures {
        let client = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: connections, maxIdleConnections: connections))
        let next = BenchCounter()
        let start = ContinuousClock.now
        let end = start + duration
        let samples = await withTaskGroup(of: ([Double], Int).self) { group in
            for _ in 0..<connections {
                group.addTask {
                    var latencies: [Double] = [], failed = 0
                    while ContinuousClock.now < end, let index = next.take(below: bodies.count) {
                        let sent = ContinuousClock.now
                        if await post(bodies[index], client) {
                            latencies.append((ContinuousClock.now - sent).seconds * 1000)
                        } else {
                            failed += 1
                        }
                    }
                    return (latencies, failed)
                }
            }
            return await group.reduce(into: [([Double], Int)]()) { $0.append($1) }
        }
        let elapsed = (ContinuousClock.now - start).seconds
        await client.shutdown()
        return Self.figures("closed loop, \(connections) connections", samples, elapsed: elapsed)
    }

    func openLoop(_ bodies: [[UInt8]], rate: Double) async -> Figures {
        let client = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: connections, maxIdleConnections: connections))
        let start = ContinuousClock.now
        let samples = await withTaskGroup(of: ([Double], Int).self) { group in
            for index in bodies.indices {
                let due = start + .nanoseconds(Int64(Double(index) / rate * 1e9))
                try? await Task.sleep(until: due)
                group.addTask {
                    await post(bodies[index], client) ? ([(ContinuousClock.now - due).seconds * 1000], 0) : ([], 1)
                }
            }
            return await group.reduce(into: [([Double], Int)]()) { $0.append($1) }
        }
        let elapsed = (ContinuousClock.now - start).seconds
        await client.shutdown()
        return Self.figures("open loop at \(Int(rate))/s, up to \(connections) connections", samples, elapsed: elapsed)
    }

    /// Whether the API answered 200 (stored, or stored before).
    private func post(_ body: [UInt8], _ client: HTTPClient) async -> Bool {
        let response = try? await client.post(url: url, headers: ["Content-Type": "application/json"], body: body, timeout: .seconds(30))
        return response?.status == 200
    }

    private static func figures(_ shape: String, _ samples: [([Double], Int)], elapsed: Double) -> Figures {
        let latencies = samples.flatMap(\.0).sorted()
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        }
        return Figures(shape: shape, accepted: latencies.count, failed: samples.reduce(0) { $0 + $1.1 },
                       acceptedPerSecond: Double(latencies.count) / max(elapsed, 1e-9),
                       p50Milliseconds: percentile(0.5), p99Milliseconds: percentile(0.99), maxMilliseconds: latencies.last ?? 0)
    }
}
