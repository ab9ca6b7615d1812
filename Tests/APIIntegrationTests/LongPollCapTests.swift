import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// Waiting long-polls hold connections. One token opening 10,000 of them must not park 10,000:
/// beyond the cap each is answered at once, and the API keeps serving.
@Suite("Long-poll caps", .serialized, .timeLimit(.minutes(3)))
struct LongPollCapTests {
    @Test func tenThousandWaitingLongPollsFromOneTokenAreCappedAndTheRestAnsweredAtOnce() async throws {
        let database = try await ScratchDatabase.migrated()
        let owner = database.pool(size: 1)
        defer { owner.shutdown() }
        let id = try await JobQueue(pool: owner).enqueue([NewJob(receiptData: "cmVjZWlwdA==", transactionID: "t", userID: "u")])[0].id
        let (port, admin) = (try FreePort.pick(), try FreePort.pick())
        // A process of its own: the test's 10,000 sockets and the API's 10,000 would not fit one limit.
        let api = try ChildProcess(arguments: [
            "api", "--port", "\(port)", "--admin-port", "\(admin)", "--max-long-polls-per-token", "100", "--max-long-polls", "1000",
            "--database-url", try await database.connectionString(as: .api),
        ], environment: ["RECEIPTQ_API_TOKENS": TokenDigestsHelper.digest(APIHarness.token),
                         "RECEIPTQ_MIGRATIONS_DIR": ScratchDatabase.migrationsDirectory().path])
        defer { api.kill() }
        #expect(await eventually(timeout: .seconds(30)) { await Self.status("http://127.0.0.1:\(admin)/readyz") == 200 },
                "api said: \(api.stderr)")
        try RawSockets.raiseDescriptorLimit(to: 12_000)

        let total = 10_000
        let request = Array("GET /v1/receipts/\(id)?wait=30 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(APIHarness.token)\r\n\r\n".utf8)
        let sockets = try RawSockets(count: total, port: port, request: request)
        defer { sockets.closeAll() }
        // Everyone beyond the cap is answered at once (the long-polls wait 30 s).
        let started = ContinuousClock.now
        let answered = sockets.readAnswers(until: total - 100, timeout: .seconds(90))
        print("long-poll cap: \(answered) of \(total) answered at once in \(ContinuousClock.now - started)")
        #expect(answered == total - 100, "\(answered) of \(total) answered")
        #expect(sockets.readAnswers(until: total, timeout: .seconds(1)) == total - 100)   // the capped 100 are still waiting

        let metrics = try #require(await Self.body("http://127.0.0.1:\(admin)/metrics"))
        #expect(metricValue(metrics, "receiptq_api_long_polls_waiting") == 100)
        #expect(metricValue(metrics, "receiptq_api_long_polls_capped_total") == Double(total - 100))
        let open = try #require(metricValue(metrics, "receiptq_process_open_fds"))
        let limit = try #require(metricValue(metrics, "receiptq_process_max_fds"))
        #expect(open < limit - 1_000, "\(open) descriptors open of \(limit)")
        // …and it still serves: another request is answered at once.
        let answer = try await HTTPTestClient.send("GET", "http://127.0.0.1:\(port)/v1/receipts/\(id)", token: APIHarness.token)
        #expect(answer.status == 200)
        let stopping = ContinuousClock.now
        api.kill(SIGTERM)
        #expect(await api.wait(timeout: .seconds(10)) == 0, "the waiting long-polls answer at once and the API exits")
        print("long-poll cap: the API stopped \(ContinuousClock.now - stopping) after SIGTERM")
    }

    static func status(_ url: String) async -> Int? {
        guard let url = URL(string: url), let (_, response) = try? await URLSession.shared.data(from: url) else { return nil }
        return (response as? HTTPURLResponse)?.statusCode
    }

    static func body(_ url: String) async -> String? {
        guard let url = URL(string: url), let (data, _) = try? await URLSession.shared.data(from: url) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Many loopback connections, each sending one request, watched with poll(2): what no HTTP
/// library in the test process would open at once.
final class RawSockets: @unchecked Sendable {
    private var descriptors: [Int32] = []
    private var answered: Set<Int32> = []

    static func raiseDescriptorLimit(to wanted: Int) throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_max >= rlim_t(wanted) else { throw TestSetupError("the open-files hard limit \(limit.rlim_max) is below \(wanted)") }
        if limit.rlim_cur < rlim_t(wanted) {
            limit.rlim_cur = rlim_t(wanted)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    /// Connects `count` sockets in batches (the listen backlog is 1,024) and sends `request` on each.
    init(count: Int, port: Int, request: [UInt8]) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        for _ in 0..<count {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw TestSetupError("socket() failed after \(descriptors.count): errno \(errno)") }
            descriptors.append(descriptor)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw TestSetupError("connect failed after \(descriptors.count): errno \(errno)") }
            guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
                throw TestSetupError("send failed after \(descriptors.count): errno \(errno)")
            }
        }
    }

    /// Reads whatever answers arrive until `target` sockets have had one or `timeout` passes;
    /// returns how many sockets have been answered (a 200 status line) so far.
    func readAnswers(until target: Int, timeout: Duration) -> Int {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 8192)
        while answered.count < target, ContinuousClock.now < deadline {
            var polled = descriptors.filter { !answered.contains($0) }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&polled, nfds_t(polled.count), 200)
            guard ready > 0 else { continue }
            for entry in polled where entry.revents != 0 {
                let count = recv(entry.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0, String(decoding: buffer.prefix(min(count, 16)), as: UTF8.self).hasPrefix("HTTP/1.1 200") {
                    answered.insert(entry.fd)
                }
            }
        }
        return answered.count
    }

    func closeAll() { descriptors.forEach { close($0) } }
}
