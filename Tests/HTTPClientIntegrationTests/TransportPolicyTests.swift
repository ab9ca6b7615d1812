import HTTPClient
import Testing

/// Pure: which URLs the engine may fetch (here beside the engine's tests; no socket needed).
@Suite("Transport policy: https to anyone, plain http only to this machine")
struct TransportPolicyTests {
    @Test(arguments: [
        ("https://buy.itunes.apple.com/verifyReceipt", TransportPolicy.https),
        ("HTTPS://sandbox.itunes.apple.com/verifyReceipt", .https),
        ("http://127.0.0.1:9100/production/verifyReceipt", .loopbackHTTP),
        ("http://127.9.8.7/x", .loopbackHTTP),
        ("http://localhost:8080/hook", .loopbackHTTP),
        ("http://[::1]:8080/hook", .loopbackHTTP),
        ("http://user@127.0.0.1/x", .loopbackHTTP),
    ])
    func allowed(url: String, policy: TransportPolicy) {
        #expect(TransportPolicy.of(url) == policy)
    }

    @Test(arguments: [
        "http://buy.itunes.apple.com/verifyReceipt", "http://10.0.0.1/x", "http://fake-appstore:8787/production/verifyReceipt",
        "http://127.0.0.1.evil.example/x", "http://127.0.0.1@evil.example/x", "http://localhost.evil.example/x",
        "ftp://127.0.0.1/x", "file:///etc/passwd", "gopher://127.0.0.1/", "no scheme", "http:/127.0.0.1/x",
    ])
    func refused(url: String) {
        #expect(TransportPolicy.of(url) == nil)
    }

    @Test func theEngineRefusesPlainHTTPToAnotherHostBeforeConnecting() async throws {
        let client = HTTPClient()
        await #expect {
            _ = try await client.post(url: "http://192.0.2.1/verifyReceipt", body: [], timeout: .seconds(1))
        } throws: { error in
            if case HTTPClientError.invalidURL = error { return true }
            return false
        }
        await client.shutdown()
    }
}
