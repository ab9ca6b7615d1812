import FakeAppStore
import HTTPClient
import Testing

/// Connection reuse and the connection cap, seen from the fake's count of accepted connections.
struct HTTPClientConnectionTests {
    @Test func sequentialRequestsReuseOneKeptAliveConnection() async throws {
        let fake = try await HTTPClientAgainstFakeTests.quickFake()
        let client = HTTPClient()
        for _ in 0..<20 {
            let response = try await client.post(url: fake.productionURL, body: HTTPClientAgainstFakeTests.body(), timeout: .seconds(5))
            #expect(response.status == 200)
        }
        #expect(fake.stats.snapshot().connectionsAccepted == 1)
        await client.shutdown()
        await fake.stop()
    }

    @Test func requestsBeyondTheConnectionCapWaitInsteadOfFailing() async throws {
        let fake = try await HTTPClientAgainstFakeTests.quickFake {
            $0.latency = FakeDurationRange(lower: .milliseconds(100), upper: .milliseconds(100))
        }
        let client = HTTPClient(configuration: .init(maxTotalConnections: 4))
        let clock = ContinuousClock()
        let started = clock.now
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await client.post(url: fake.productionURL, body: HTTPClientAgainstFakeTests.body(), timeout: .seconds(20)).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 40))
        #expect(fake.stats.snapshot().connectionsAccepted <= 4)
        #expect(clock.now - started >= .milliseconds(900))  // 40 requests / 4 connections × 100 ms
        await client.shutdown()
        await fake.stop()
    }
}

extension HTTPClientConnectionTests {
    /// The worker relies on this: time spent waiting for a connection slot counts against the
    /// request's total timeout, so a saturated client reports `timeout`, never hangs.
    @Test func waitingForAConnectionSlotCountsAgainstTheTimeout() async throws {
        let fake = try await HTTPClientAgainstFakeTests.quickFake {
            $0.latency = FakeDurationRange(lower: .seconds(1), upper: .seconds(1))
        }
        let client = HTTPClient(configuration: .init(maxTotalConnections: 1))
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    do {
                        _ = try await client.post(url: fake.productionURL, body: HTTPClientAgainstFakeTests.body(), timeout: .milliseconds(1_500))
                        return true
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 2)
        #expect(results.filter { $0 }.count == 1)
        await client.shutdown()
        await fake.stop()
    }
}
