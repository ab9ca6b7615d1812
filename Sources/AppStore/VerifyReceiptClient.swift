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
        var spent = Spent()
        while true {
            let clock = ContinuousClock()
            let started = clock.now
            let answer: Result<HTTPResponse, HTTPClientError>
            do {
                answer = .success(try await httpClient.post(
                    url: configuration.url(for: environment),
                    headers: ["Content-Type": "application/json"],
                    body: body, timeout: configuration.requestTimeout, hedge: hedge))
            } catch let error as HTTPClientError {
                answer = .failure(error)
            } catch {
                throw CancellationError()
            }
            switch Self.judge(answer, from: environment, after: clock.now - started, spent: &spent) {
            case .done(let result): return result
            case .ask(let other): environment = other
            }
        }
    }

    /// What the verification has cost so far.
    private struct Spent {
        var latency = Duration.zero
        var calls = 0
        var switched = false
    }

    private enum Next {
        case done(VerificationResult)
        case ask(VerifyReceiptEnvironment)
    }

    /// One answer from `environment` judged: the verification's result, or the other environment
    /// to ask (once per verification). Not inlined into `verify`, so that the classification's
    /// locals stay off its async frame, which lives while Apple answers.
    @inline(never)
    private static func judge(_ answer: Result<HTTPResponse, HTTPClientError>, from environment: VerifyReceiptEnvironment,
                              after latency: Duration, spent: inout Spent) -> Next {
        spent.calls += 1
        spent.latency += latency
        let outcome: VerificationOutcome
        switch answer {
        case .failure(let error):
            outcome = switch error {
            case .timeout: .timedOut
            case .tls: .retryLater(.tls(error.description))
            default: .retryLater(.network(error.description))
            }
        case .success(let response):
            switch ReceiptClassification.classify(httpStatus: response.status, body: response.body) {
            case .switchEnvironment(let target):
                if spent.switched || target == environment {
                    outcome = .retryLater(.environmentLoop)
                } else {
                    spent.switched = true
                    return .ask(target)
                }
            case .valid(let response): outcome = .valid(response)
            case .retryLater(let reason): outcome = .retryLater(reason)
            case .reject(let reason): outcome = .reject(reason)
            case .configurationError(let problem): outcome = .configurationError(problem)
            }
        }
        return .done(VerificationResult(outcome: outcome, environment: environment, latency: spent.latency, calls: spent.calls))
    }
}
