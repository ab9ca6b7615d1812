import AppStoreServerAPI
import CommandSupport
import HTTPClient
import Postgres
import Worker

/// App Store Server API clients for both environments, sharing one fleet-wide rate budget kept
/// in PostgreSQL — made the same way by every command that calls Apple (worker, scheduler).
enum ServerAPIWiring {
    static func clients(_ api: ServerAPISettings, http: HTTPClient, budgetPool: PostgresPool) throws -> ServerAPIClients {
        let gate = FleetRateLimiter(store: PostgresRateBudgetStore(pool: budgetPool),
                                    configuration: FleetRateLimiterConfiguration(limits: api.limits), clock: ContinuousClock())
        let tokens = try api.tokens()
        return ServerAPIClients(
            production: try AppStoreServerAPIClient(environment: .production, httpClient: http, tokens: tokens, configuration: api.api, gate: gate),
            sandbox: try AppStoreServerAPIClient(environment: .sandbox, httpClient: http, tokens: tokens, configuration: api.api, gate: gate))
    }
}
