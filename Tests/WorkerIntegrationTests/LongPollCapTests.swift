import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

extension EndToEndRuns {
    /// Waiting long-polls hold connections. One token opening 10,000 of them must not park 10,000:
    /// beyond the cap each is answered at once, and the API keeps serving. Among the heavy runs,
    /// which take turns: 10,000 connections at once would measure the machine, not the cap.
    @Suite("Long-poll caps", .timeLimit(.minutes(3)))
    struct LongPollCapTests {
        static let token = "long-poll-cap-token"
        /// sha256("long-poll-cap-token"), as RECEIPTQ_API_TOKENS holds it.
        static let digest = "09d58025a69e4e18e3e88d4ac2c92d68ca52c7ad4f57292ddc8ff5c77f3f0ac3"

        @Test func tenThousandWaitingLongPollsFromOneTokenAreCappedAndTheRestAnsweredAtOnce() async throws {
            let database = try await ScratchDatabase.migrated()
            let owner = database.pool(size: 1)
            defer { owner.shutdown() }
            let id = try await JobQueue(pool: owner).enqueue([NewJob(receiptData: "cmVjZWlwdA==", transactionID: "t", userID: "u")])[0].id
            let (port, admin) = (try FreePort.pick(), try FreePort.pick())
            // A process of its own: the test's 10,000 sockets and the API's 10,000 would not fit one limit.
            let api = try ChildProcess(arguments: [
                "api", "--port", "\(port)", "--admin-port", "\(admin)", "--receipt-check", "off", "--max-long-polls-per-token", "100", "--max-long-polls", "1000",
                "--database-url", try await database.connectionString(as: .api),
            ], environment: ["RECEIPTQ_API_TOKENS": Self.digest, "RECEIPTQ_MIGRATIONS": ScratchDatabase.migrationsDirectory().path])
            defer { api.kill() }
            #expect(await eventually(timeout: .seconds(30)) { await Self.get("http://127.0.0.1:\(admin)/readyz")?.status == 200 },
                    "api said: \(api.stderr)")
            try RawSockets.raiseDescriptorLimit(to: 12_000)

            let total = 10_000
            let request = Array("GET /v1/receipts/\(id)?wait=30 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Self.token)\r\n\r\n".utf8)
            let started = ContinuousClock.now
            let sockets = try await RawSockets.openOffThePool(count: total, port: port, request: request)
            defer { sockets.closeAll() }
            // Everyone beyond the cap is answered at once; a long-poll let in waits its 30 s out.
            await sockets.readAnswersOffThePool(until: total - 100, timeout: .seconds(90))
            let elapsed = ContinuousClock.now - started
            print("long-poll cap: \(sockets.answered) of \(total) answered in \(elapsed)")
            // A snapshot where the API's count and the sockets' agree: near 30 s (a loaded machine
            // takes that long to open 10,000 sockets) long-polls let in first leave the waiting set
            // between the metrics read and the reading of their answers. Waiting only shrinks now,
            // so the two agree again within a read or two, at the latest when all have left.
            var metrics = "", waiting = 0.0, capped = 0.0
            let agreed = try await eventually(timeout: .seconds(40), every: .milliseconds(10)) {
                await sockets.readAnswersOffThePool(until: total, timeout: .milliseconds(300))
                metrics = try #require(await Self.get("http://127.0.0.1:\(admin)/metrics")).body
                waiting = try #require(Self.value(metrics, "receiptq_api_long_polls_waiting"))
                capped = try #require(Self.value(metrics, "receiptq_api_long_polls_capped_total"))
                await sockets.readAnswersOffThePool(until: total - Int(waiting), timeout: .milliseconds(300))
                return sockets.answered + Int(waiting) == total
            }
            #expect(sockets.otherAnswers == 0, "answers other than 200")
            #expect(agreed && waiting <= 100, "\(waiting) waiting, \(sockets.answered) answered")
            if elapsed < .seconds(25) { #expect(waiting == 100) }   // nobody let in can have waited its 30 s out yet
            // A long-poll let in leaves only after its 30 s: in `elapsed`, at most 100 per 30 s
            // were let in; every other request was capped and answered at once.
            let rounds = Int((elapsed / .seconds(30)).rounded(.up))
            #expect(capped >= Double(total - 100 * max(1, rounds)), "\(capped) capped in \(elapsed)")
            // (At least: on a machine loaded enough, a capped answer itself can take that long.)
            #expect(sockets.latencies.filter { $0 >= .seconds(29) }.count >= total - Int(capped) - Int(waiting),
                    "every request let in and answered waited its 30 s out")
            let open = try #require(Self.value(metrics, "process_open_fds"))
            let limit = try #require(Self.value(metrics, "process_max_fds"))
            #expect(open < limit - 1_000, "\(open) descriptors open of \(limit)")
            // …and it still serves: another request is answered at once.
            let other = try #require(await Self.get("http://127.0.0.1:\(port)/v1/receipts/\(id)", token: Self.token))
            #expect(other.status == 200)
            // Shutdown answers the long-polls still waiting at once, not after their 30 s. The
            // process then closes 10,000 connections: 3.8–5.7 s on this machine, once over 10 s
            // beside the whole suite, so its exit is bounded well under the 30 s wait instead.
            let stopping = ContinuousClock.now
            api.kill(SIGTERM)
            await sockets.readAnswersOffThePool(until: total, timeout: .seconds(10))
            let answered = ContinuousClock.now - stopping
            #expect(sockets.answered == total, "\(total - sockets.answered) long-polls not answered within 10 s of SIGTERM")
            #expect(await api.wait(timeout: .seconds(25)) == 0, "the API exits well before a long-poll's 30 s")
            print("long-poll cap: the waiting long-polls answered \(answered) and the API stopped \(ContinuousClock.now - stopping) after SIGTERM")
        }

        static func get(_ url: String, token: String? = nil) async -> (status: Int, body: String)? {
            guard let url = URL(string: url) else { return nil }
            var request = URLRequest(url: url)
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            guard let (data, response) = try? await URLSession.shared.data(for: request) else { return nil }
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }

        /// The value of an unlabelled sample in Prometheus text.
        static func value(_ text: String, _ name: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
        }
    }
}

/// Many loopback connections, each sending one request, watched with poll(2): what no HTTP
/// library in the test process would open at once. A socket leaves the watch at its first bytes
/// (or its end), so nothing spins on a socket already answered.
final class RawSockets: @unchecked Sendable {
    private var descriptors: [Int32] = []
    private var sentAt: [Int32: ContinuousClock.Instant] = [:]
    private var done: Set<Int32> = []
    /// Time from each socket's request to its 200.
    private(set) var latencies: [Duration] = []
    /// Sockets that got something other than a 200 (or were closed).
    private(set) var otherAnswers = 0

    var answered: Int { latencies.count }

    static func raiseDescriptorLimit(to wanted: Int) throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_max >= rlim_t(wanted) else { throw TestSetupError("the open-files hard limit \(limit.rlim_max) is below \(wanted)") }
        if limit.rlim_cur < rlim_t(wanted) {
            limit.rlim_cur = rlim_t(wanted)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    /// Connects `count` sockets one after the other and sends `request` on each.
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
            sentAt[descriptor] = .now
            guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
                throw TestSetupError("send failed after \(descriptors.count): errno \(errno)")
            }
        }
    }

    /// Reads the answers that arrive until `target` sockets have a 200 or `timeout` passes.
    func readAnswers(until target: Int, timeout: Duration) {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 8192)
        while answered < target, ContinuousClock.now < deadline {
            var polled = descriptors.filter { !done.contains($0) }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard !polled.isEmpty else { return }
            guard poll(&polled, nfds_t(polled.count), 200) > 0 else { continue }
            for entry in polled where entry.revents != 0 {
                done.insert(entry.fd)
                let count = recv(entry.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0, String(decoding: buffer.prefix(min(count, 16)), as: UTF8.self).hasPrefix("HTTP/1.1 200") {
                    latencies.append(.now - (sentAt[entry.fd] ?? .now))
                } else {
                    otherAnswers += 1
                }
            }
        }
    }

    func closeAll() { descriptors.forEach { close($0) } }

    /// The connections, opened on a thread of its own: a connect blocks while the server's
    /// accept backlog is full.
    static func openOffThePool(count: Int, port: Int, request: [UInt8]) async throws -> RawSockets {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RawSockets, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result { try RawSockets(count: count, port: port, request: request) })
            }
        }
    }

    /// `readAnswers` on a thread of its own: poll(2) blocks, and blocking one of the test
    /// process's two cooperative threads for up to 90 s stalled every other test running beside
    /// it (dozens timed out in one full run).
    func readAnswersOffThePool(until target: Int, timeout: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                self.readAnswers(until: target, timeout: timeout)
                continuation.resume()
            }
        }
    }
}
