import HTTPClient

/// Verifies one receipt with Apple: production first; on 21007 the sandbox, on 21008
/// production; at most one switch per verification (a second one is `retryLater(.environmentLoop)`).
///
/// The worker calls `verify` once per job attempt; it never throws except `CancellationError`:
/// every failure is an outcome.
public struct VerifyReceiptClient: Sendable {
    public let configuration: VerifyReceiptClientConfiguration
    private let httpClient: HTTPClient

    public init(httpClient: HTTPClient, configuration: VerifyReceiptClientConfiguration = .init()) {
        self.httpClient = httpClient
        self.configuration = configuration
    }

    /// - Parameters:
    ///   - receiptData: base64 as the app sent it (whitespace is stripped here).
    ///   - startingAt: the first environment to ask. Default: production.
    /// - Throws: `CancellationError` only.
    public func verify(receiptData: String, startingAt: VerifyReceiptEnvironment = .production) async throws -> VerificationResult {
        try await verify(body: requestBody(receiptData: receiptData), startingAt: startingAt)
    }

    /// The verifyReceipt body for `receiptData` (whitespace stripped) with this client's secret
    /// and flags. A worker makes it as it sends a job, so that the body is the only copy of the
    /// receipt kept while Apple answers.
    public func requestBody(receiptData: String) -> HTTPBody {
        VerifyReceiptRequest(
            receiptData: receiptData, password: configuration.sharedSecret,
            excludeOldTransactions: configuration.excludeOldTransactions
        ).httpBody()
    }

    /// `verify(receiptData:startingAt:)` with the body made by `requestBody(receiptData:)`.
    /// - Parameter hedge: when a request still unanswered is sent again (verifyReceipt is an
    ///   idempotent read); nil: never.
    /// - Throws: `CancellationError` only.
    public func verify(body: HTTPBody, startingAt: VerifyReceiptEnvironment = .production,
                       hedge: HTTPHedge? = nil) async throws -> VerificationResult {
        var environment = startingAt
        var latency = Duration.zero
        var calls = 0
        var switched = false
        while true {
            calls += 1
            let clock = ContinuousClock()
            let started = clock.now
            let classification: ReceiptClassification
            do {
                let response = try await httpClient.post(
                    url: configuration.url(for: environment),
                    headers: ["Content-Type": "application/json"],
                    body: body, timeout: configuration.requestTimeout, hedge: hedge)
                latency += clock.now - started
                classification = .classify(httpStatus: response.status, body: response.body)
            } catch let error as HTTPClientError {
                latency += clock.now - started
                let outcome: VerificationOutcome = switch error {
                case .timeout: .timedOut
                case .tls: .retryLater(.tls(error.description))
                default: .retryLater(.network(error.description))
                }
                return VerificationResult(outcome: outcome, environment: environment, latency: latency, calls: calls)
            } catch {
                throw CancellationError()
            }
            let outcome: VerificationOutcome
            switch classification {
            case .switchEnvironment(let target):
                if switched || target == environment {
                    outcome = .retryLater(.environmentLoop)
                } else {
                    switched = true
                    environment = target
                    continue
                }
            case .valid(let response): outcome = .valid(response)
            case .retryLater(let reason): outcome = .retryLater(reason)
            case .reject(let reason): outcome = .reject(reason)
            case .configurationError(let problem): outcome = .configurationError(problem)
            }
            return VerificationResult(outcome: outcome, environment: environment, latency: latency, calls: calls)
        }
    }
}
