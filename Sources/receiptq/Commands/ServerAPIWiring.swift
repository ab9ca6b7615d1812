import AppStoreServerAPI
import CommandSupport
import HTTPClient
import Postgres
import ReceiptQueue
import Worker

/// App Store Server API clients for both environments, sharing one fleet-wide rate budget kept
/// in PostgreSQL — made the same way by every command that calls Apple (worker, scheduler).
enum ServerAPIWiring {
    static func clients(_ api: ServerAPISettings, http: HTTPClient, budgetPool: PostgresPool, calls: CallRecorder? = nil) throws -> ServerAPIClients {
        try clients(api, http: http, gate: limiter(api, budgetPool: budgetPool), calls: calls)
    }

    /// The fleet's rate budget as this process takes it: one per process, shared by all its clients.
    static func limiter(_ api: ServerAPISettings, budgetPool: PostgresPool) -> FleetRateLimiter<ContinuousClock> {
        FleetRateLimiter(store: PostgresRateBudgetStore(pool: budgetPool),
                         configuration: FleetRateLimiterConfiguration(limits: api.limits), clock: ContinuousClock())
    }

    /// Clients behind `gate` (the limiter itself, or a `BudgetShareGate` over it); `calls` hears of every call.
    static func clients(_ api: ServerAPISettings, http: HTTPClient, gate: any ServerAPIRequestGate,
                        calls: CallRecorder? = nil) throws -> ServerAPIClients {
        let tokens = try api.tokens()
        return ServerAPIClients(
            production: try AppStoreServerAPIClient(environment: .production, httpClient: http, tokens: tokens, configuration: api.api,
                                                    gate: gate, observer: calls),
            sandbox: try AppStoreServerAPIClient(environment: .sandbox, httpClient: http, tokens: tokens, configuration: api.api,
                                                 gate: gate, observer: calls))
    }
}
