import HTTPClient
import Testing

struct HTTPClientTLSTests {
    @Test func tlsHandshakeFailureIsATLSError() async throws {
        let fake = try await HTTPClientAgainstFakeTests.quickFake()
        let client = HTTPClient()
        // The fake speaks plain HTTP, so a TLS client hello gets no TLS answer.
        let url = "https://127.0.0.1:\(fake.port)/production/verifyReceipt"
        await #expect {
            _ = try await client.post(url: url, body: HTTPClientAgainstFakeTests.body(), timeout: .seconds(5))
        } throws: { error in
            if case HTTPClientError.tls = error { return true }
            return false
        }
        await client.shutdown()
        await fake.stop()
    }
}
