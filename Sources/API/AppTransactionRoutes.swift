import AppleSignedData
import Foundation
import Hummingbird
import Postgres
import ReceiptQueue

/// The customer's app transaction (StoreKit 2's `AppTransaction`: their download of the app).
///
/// - POST /v1/users/{user_id}/app-transactions `{"signed_app_transaction": "<JWS>"}`: the backend
///   hands over what `AppTransaction.shared` gave the app. Its signature, chain (to the roots
///   configured), bundle id, environment and app Apple id are checked before anything is stored
///   (422 otherwise); it is kept for this user (201, or 200 when already theirs), or refused with
///   403 when another user submitted it first (`RecordAppTransaction`).
/// - GET /v1/users/{user_id}/app-transactions: what was kept — the version the customer first
///   downloaded and when, for "bought the app before it went free" (docs/app-transactions.md).
///
/// RESCIND_CONSENT names the Apple Account by its app transaction id only; once kept here, its
/// `consent.rescinded` event names this user.
struct AppTransactionRoutes<Context: RequestContext> {
    let configuration: APIConfiguration
    let pool: PostgresPool

    func register(on group: RouterGroup<Context>) {
        group.post("users/:user_id/app-transactions") { request, context in try await submit(request, context: context) }
        group.get("users/:user_id/app-transactions") { _, context in try await list(context: context) }
    }

    struct Submission: Decodable {
        var signedAppTransaction: String?
        enum CodingKeys: String, CodingKey { case signedAppTransaction = "signed_app_transaction" }
    }

    struct AppTransactionList: Encodable {
        var userId: String
        var appTransactions: [AppTransactionRecord]
    }

    func submit(_ request: Request, context: Context) async throws -> Response {
        let userID = try FieldRules.pathIdentifier(context.parameters, "user_id")
        let body = try await JSONBody.decode(Submission.self, from: request, limit: configuration.maxBodyBytes)
        guard let jws = body.signedAppTransaction, !jws.isEmpty else {
            throw Problem.invalid("signed_app_transaction", "signed_app_transaction is required: the JWS AppTransaction.shared gave the app")
        }
        guard jws.utf8.count <= configuration.maxReceiptBytes else {
            throw Problem(.tooLarge, "signed_app_transaction is larger than \(configuration.maxReceiptBytes) bytes")
        }
        let (app, environment) = try await verify(jws)
        guard let id = app.appTransactionId, (1...64).contains(id.count), let bundleID = app.bundleId, let signedDate = app.signedDate else {
            throw Problem(.invalidAppTransaction, "the app transaction carries no app transaction id, bundle id or signed date")
        }
        let record = AppTransactionRecord(appTransactionId: id, environment: environment.rawValue, userId: userID, bundleId: bundleID,
                                          originalApplicationVersion: app.originalApplicationVersion,
                                          originalPurchaseDate: app.originalPurchaseDate.map { Date(timeIntervalSince1970: Double($0) / 1000) },
                                          originalPlatform: app.originalPlatform, applicationVersion: app.applicationVersion,
                                          signedAt: Date(timeIntervalSince1970: Double(signedDate) / 1000))
        let outcome = try await pool.withConnection {
            try RecordAppTransaction.run(record, originalPurchaseDateMilliseconds: app.originalPurchaseDate, signedAtMilliseconds: signedDate, on: $0)
        }
        switch outcome {
        case .created(let stored): return try JSONBody.response(stored, status: .created)
        case .kept(let stored): return try JSONBody.response(stored)
        case .ownedByAnotherUser: throw Problem(.appTransactionNotOwned, "another user submitted this app transaction first")
        }
    }

    func list(context: Context) async throws -> Response {
        let userID = try FieldRules.pathIdentifier(context.parameters, "user_id")
        let records = try await pool.withConnection { try ListAppTransactions.run(userID: userID, on: $0) }
        return try JSONBody.response(AppTransactionList(userId: userID, appTransactions: records))
    }

    /// The verified payload, or a 422 naming why it was refused (never the payload itself).
    private func verify(_ jws: String) async throws -> (AppTransactionPayload, AppStoreEnvironment) {
        guard let verifier = configuration.signedTransactions else {
            throw Problem(.invalidAppTransaction, "this API does not accept signed data: it was started without --bundle-ids")
        }
        do {
            return try await verifier.verifyAppTransaction(jws)
        } catch let error as SignedDataVerificationError {
            throw Problem(.invalidAppTransaction, error.description)
        }
    }
}
