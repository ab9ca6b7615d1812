import Foundation

/// Look Up Order ID, Get App Transaction Info, Set App Account Token and Finish Transaction. Look Up Order ID is
/// production-only at Apple; the fake answers it in both environments from its own purchases.
extension FakeServerAPI {
    private struct OrderLookupBody: Encodable {
        /// 0 valid, 1 invalid (no such order for this app).
        var status: Int
        var signedTransactions: [String]?
    }

    func lookUpOrderId(_ orderId: String, _ environment: FakeEnvironment, _ now: Date) -> FakeServerAPIAnswer {
        let transactions = purchases.order(orderId, in: environment)
        guard !transactions.isEmpty else { return .json(200, OrderLookupBody(status: 1, signedTransactions: nil)) }
        return .json(200, OrderLookupBody(status: 0, signedTransactions: transactions.map { signer.signTransaction($0, signedAt: now) }))
    }

    func appTransactionInfo(_ id: String, _ environment: FakeEnvironment, _ now: Date) -> FakeServerAPIAnswer {
        guard let app = purchases.appTransaction(for: id, in: environment) else { return Self.transactionNotFound }
        return .json(200, ["signedAppTransactionInfo": signer.signAppTransaction(app, appAppleId: configuration.appAppleId, signedAt: now)])
    }

    /// Finish Transaction: 200 with no body, as Apple answers; the transaction is marked finished
    /// (`FakePurchases.isFinished`). A transaction the fake does not know is Apple's 404.
    func finishTransaction(_ id: String, _ environment: FakeEnvironment) -> FakeServerAPIAnswer {
        purchases.finish(id, in: environment) ? FakeServerAPIAnswer(status: 200) : Self.transactionNotFound
    }

    /// 200 with no body, as Apple answers; the token shows in every later signed transaction and
    /// renewal info of the purchase.
    func setAppAccountToken(_ originalTransactionId: String, _ environment: FakeEnvironment, _ body: [UInt8]) -> FakeServerAPIAnswer {
        guard let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return .appleError(400, 4_000_000, "Invalid request.")
        }
        guard let text = json["appAccountToken"] as? String, let token = UUID(uuidString: text) else {
            return .appleError(400, 4_000_183, "Invalid request. The app account token field must be a valid UUID.")
        }
        do throws(FakePurchases.AppAccountTokenRefusal) {
            _ = try purchases.setAppAccountToken(token, originalTransactionId: originalTransactionId, in: environment)
            return FakeServerAPIAnswer(status: 200)
        } catch {
            switch error {
            case .notFound: return Self.transactionNotFound
            case .notOriginal: return .appleError(400, 4_000_187, "Invalid request. The transaction id is not an original transaction id.")
            case .familyShared: return .appleError(400, 4_000_185, "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
            }
        }
    }
}
