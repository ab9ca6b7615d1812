import AppStore
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

/// Our libcurl client against a real TLS server whose certificate no system CA signed.
@Suite("TLS: an untrusted certificate is refused, the CA bundle is the only trust")
struct UntrustedCertificateTests {
    static func isTLSError(_ error: any Error) -> Bool {
        if case HTTPClientError.tls = error { return true }
        return false
    }

    @Test func aCertificateNoTrustedCASignedIsRefusedAsATLSError() async throws {
        let authority = try TestCertificateAuthority(name: "untrusted")
        let server = try await LocalTLSServer(authority: authority)
        defer { server.stop() }
        let client = HTTPClient()
        await #expect(performing: { _ = try await client.post(url: server.url, body: [], timeout: .seconds(10)) }, throws: Self.isTLSError)
        await client.shutdown()
    }

    @Test func theCABundleTrustsItsOwnCAAndNothingElse() async throws {
        let authority = try TestCertificateAuthority(name: "ours")
        let other = try TestCertificateAuthority(name: "theirs")
        let server = try await LocalTLSServer(authority: authority)
        defer { server.stop() }
        let trusting = HTTPClient(configuration: HTTPClientConfiguration(caBundlePath: authority.caFile.path))
        let response = try await trusting.post(url: server.url, body: Array("{}".utf8), timeout: .seconds(10))
        #expect(response.status == 200)
        let wrongCA = HTTPClient(configuration: HTTPClientConfiguration(caBundlePath: other.caFile.path))
        await #expect(performing: { _ = try await wrongCA.post(url: server.url, body: [], timeout: .seconds(10)) }, throws: Self.isTLSError)
        await trusting.shutdown()
        await wrongCA.shutdown()
    }

    @Test func aVerificationRefusedForTLSIsItsOwnReasonNotANetworkError() async throws {
        let authority = try TestCertificateAuthority(name: "untrusted")
        let server = try await LocalTLSServer(authority: authority)
        defer { server.stop() }
        let client = HTTPClient()
        let verifier = VerifyReceiptClient(httpClient: client, configuration: VerifyReceiptClientConfiguration(
            productionURL: server.url, sandboxURL: server.url, requestTimeout: .seconds(10)))
        let result = try await verifier.verify(receiptData: "cmVjZWlwdA==")
        guard case .retryLater(.tls) = result.outcome else {
            Issue.record("expected a TLS failure, got \(result.outcome)")
            return
        }
        #expect(RetryReason.tls("x").shouldAlert)
        await client.shutdown()
    }
}
