/// A production and a sandbox client for one app, with Apple's environment rule: ask production
/// first; when Apple answers "transaction not found", ask the sandbox (App Review and TestFlight
/// buy in the sandbox with production builds). Not found in either is `.transactionNotFound` from
/// the sandbox — an answer (DESIGN.md: `not_paid`), not a failure to retry.
public struct ServerAPIClients: Sendable {
    public let production: AppStoreServerAPIClient
    public let sandbox: AppStoreServerAPIClient

    public init(production: AppStoreServerAPIClient, sandbox: AppStoreServerAPIClient) {
        precondition(production.environment == .production && sandbox.environment == .sandbox, "clients for the wrong environments")
        self.production = production
        self.sandbox = sandbox
    }

    public func client(for environment: ServerAPIEnvironment) -> AppStoreServerAPIClient {
        environment == .production ? production : sandbox
    }

    /// Runs `call` against `first` (default production), then against the other environment if
    /// the first found no such transaction. Returns the environment that answered.
    public func inEitherEnvironment<T: Sendable>(startingAt first: ServerAPIEnvironment = .production,
                                                 _ call: (AppStoreServerAPIClient) async throws -> T) async throws -> (environment: ServerAPIEnvironment, value: T) {
        do {
            return (first, try await call(client(for: first)))
        } catch let error as ServerAPIError where error.kind == .transactionNotFound {
            return (first.other, try await call(client(for: first.other)))
        }
    }
}
