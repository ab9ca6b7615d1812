import AppleSignedData
import Hummingbird
import ReceiptQueue

/// POST /v1/transactions: StoreKit 2 purchases, and transaction ids of apps still on the original
/// StoreKit. A signed transaction's signature, certificate chain (to the roots configured, never
/// one in the message), bundle id and environment are checked before the answer, so a forgery
/// gets a 422 at once and is never stored; a genuine one is committed (group commit, as
/// receipts) and answered 202, or 200 with this user's existing job when the same user submitted
/// the same transaction before (whatever the signature's bytes). A transaction id alone is a
/// claim, not proof: the worker grants it only to the owner Apple's signed appAccountToken names,
/// unless the bearer token that sent it is trusted for claims (`trustedClaimTokens`, and in the
/// database: the token goes along as the proof, so the API's login alone vouches for nobody). The job's
/// status is at the same `/v1/receipts/{id}` resource as receipts', with the same verdicts.
struct TransactionRoutes<Context: RequestContext> {
    let configuration: APIConfiguration
    let groupCommit: JobGroupCommit
    let metrics: APIMetrics

    func register(on group: RouterGroup<Context>) {
        group.post("transactions") { request, _ in try await submit(request) }
    }

    func submit(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(TransactionSubmission.self, from: request, limit: configuration.maxBodyBytes)
        let claims = try body.claims()
        var job: NewJob
        switch (body.signedTransaction, body.transactionID) {
        case (let jws?, let claimed):
            guard jws.utf8.count <= configuration.maxReceiptBytes else {
                throw Problem(.tooLarge, "signed_transaction is larger than \(configuration.maxReceiptBytes) bytes")
            }
            let (transaction, environment) = try await verify(jws)
            guard let id = transaction.transactionId, (1...64).contains(id.count) else {
                throw Problem(.invalidSignedTransaction, "the signed transaction carries no transaction id")
            }
            if let claimed, claimed != id {
                throw Problem.invalid("transaction_id", "transaction_id differs from the signed transaction's (leave it out)")
            }
            job = .signedTransaction(jws, transactionID: id, environment: environment.rawValue, userID: claims.userID,
                                     productID: claims.productID,
                                     orderID: claims.orderID, appAccountToken: transaction.appAccountToken ?? claims.appAccountToken)
        case (nil, let id?):
            // The database keeps the mark only for a token it trusts too (`TrustedClaimTokens`).
            let trusted = RequestToken.index.map(configuration.trustedClaimTokens.contains) ?? false
            job = .transactionID(try FieldRules.identifier(id, "transaction_id"), userID: claims.userID, productID: claims.productID,
                                 orderID: claims.orderID, appAccountToken: claims.appAccountToken, trustedClaim: trusted,
                                 claimProof: trusted ? RequestToken.token.map { ClaimProof(token: String($0)) } : nil)
        case (nil, nil):
            throw Problem.invalid("signed_transaction", "give signed_transaction (StoreKit 2) or transaction_id")
        }
        job.requestID = RequestID.of(request)
        let result = try await groupCommit.submitTraced(job, tracing: configuration.tracing)
        metrics.submitted(created: result.created)
        var response = try JSONBody.response(ReceiptStatus(result), status: result.created ? .accepted : .ok)
        response.headers[.location] = ReceiptStatus.url(result.id)
        return response
    }

    /// The verified payload, or a 422 naming why it was refused (never the payload itself).
    private func verify(_ jws: String) async throws -> (TransactionPayload, AppStoreEnvironment) {
        guard let verifier = configuration.signedTransactions else {
            throw Problem(.invalidSignedTransaction, "this API does not accept signed transactions: it was started without --bundle-ids")
        }
        do {
            return try await verifier.verify(jws)
        } catch let error as SignedDataVerificationError {
            throw Problem(.invalidSignedTransaction, error.description)
        }
    }
}
