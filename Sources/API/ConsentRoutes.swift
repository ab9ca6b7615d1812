import Foundation
import Hummingbird
import Postgres
import ReceiptQueue

/// PUT /v1/users/{user_id}/consumption-consent `{"consented": true|false}`: the backend records
/// whether the customer agreed to share consumption data with Apple. Without a recorded `true`,
/// ReceiptQueue never answers Apple's CONSUMPTION_REQUESTs about that user's purchases (Apple
/// refuses the answer anyway). Idempotent; the latest answer wins.
struct ConsentRoutes<Context: RequestContext> {
    let configuration: APIConfiguration
    let pool: PostgresPool

    func register(on group: RouterGroup<Context>) {
        group.put("users/:user_id/consumption-consent") { request, context in try await record(request, context: context) }
    }

    struct Body: Decodable {
        var consented: Bool
    }

    struct Answer: Encodable {
        var userId: String
        var consented: Bool
        var recordedAt: Date
    }

    func record(_ request: Request, context: Context) async throws -> Response {
        let userID = try FieldRules.pathIdentifier(context.parameters, "user_id")
        let body = try await JSONBody.decode(Body.self, from: request, limit: 1024)
        let consented = body.consented
        let recordedAt = try await pool.withConnection { try RecordConsumptionConsent.run(userID: userID, consented: consented, on: $0) }
        return try JSONBody.response(Answer(userId: userID, consented: consented, recordedAt: recordedAt))
    }
}
