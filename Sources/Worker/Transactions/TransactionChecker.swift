import AppStore
import AppStoreServerAPI
import AppleSignedData
import ReceiptQueue

/// Checks one job's transaction — the I/O behind `TransactionDecision`: a StoreKit 2 signed
/// transaction is verified locally against the trusted roots (about a millisecond, no call to
/// Apple); a transaction id is looked up with Get Transaction Info, production first then the
/// sandbox, under the fleet's rate budget, and Apple's signed answer is verified the same way. A
/// receipt (`--receipt-verifier server-api`) proves its transaction first: verified here and
/// found to hold it, the transaction is looked up; a receipt this machine cannot confirm goes to
/// Apple's verifyReceipt (`receipts`), never to a lookup of the client's claim.
public struct TransactionChecker: Sendable {
    /// Verifies both environments; whether sandbox purchases are accepted is the decision's call.
    public let verifier: SignedTransactionVerifier
    /// nil: no App Store Server API credentials; transaction ids cannot be checked here.
    public let serverAPI: ServerAPIClients?
    /// Also look a signed transaction up with Get Transaction Info (Apple's current view: a refund
    /// since the app got the JWS). Costs one call of the rate budget per purchase.
    public let confirmSignedTransactions: Bool
    /// With `--receipt-verifier server-api`: a receipt job's receipt is verified here first and
    /// only a transaction it holds is looked up (`LocalReceiptDecision`). nil: receipts are not
    /// this checker's (the verifyReceipt worker takes them).
    public let localReceipts: AppReceiptVerifier?
    /// Apple's verifyReceipt, for receipts the local check could not confirm. nil: not configured.
    public let receipts: VerifyReceiptClient?

    public init(verifier: SignedTransactionVerifier, serverAPI: ServerAPIClients?, confirmSignedTransactions: Bool = false,
                localReceipts: AppReceiptVerifier? = nil, receipts: VerifyReceiptClient? = nil) {
        self.verifier = verifier
        self.serverAPI = serverAPI
        self.confirmSignedTransactions = confirmSignedTransactions
        self.localReceipts = localReceipts
        self.receipts = receipts
    }

    public func check(_ lease: JobLease) async -> TransactionCheck {
        if lease.kind == .signedTransaction, let jws = lease.signedTransaction {
            let local: TransactionCheck
            do {
                let (transaction, environment) = try await verifier.verify(jws)
                local = .verified(transaction, environment: environment.rawValue)
            } catch let error as SignedDataVerificationError {
                return .signatureRefused(error.reason)
            } catch {
                return .signatureRefused(.payloadNotDecodable)
            }
            guard confirmSignedTransactions, serverAPI != nil, case .verified(let transaction, _) = local,
                  let id = transaction.transactionId else { return local }
            return await lookUp(id)
        }
        if lease.kind == .receipt {
            let local = await LocalReceiptCheck.run(localReceipts, receiptData: lease.receiptData)
            switch LocalReceiptDecision.decide(local, transactionID: lease.transactionID, verifier: .serverAPI) {
            case .reject(let reason): return .receiptRefused(reason: reason)
            case .resubmit(let reason): return .notInReceipt(reason: reason)
            case .lookUp(let id): return await lookUp(id)
            case .askApple(let valid): return await askVerifyReceipt(lease.receiptData, locallyValid: valid)
            }
        }
        return await lookUp(lease.transactionID)
    }

    /// Apple's verifyReceipt for a receipt this machine could not confirm.
    private func askVerifyReceipt(_ receiptData: String, locallyValid: Bool) async -> TransactionCheck {
        guard let receipts else {
            return .serverAPI(ServerAPIError(.network, detail: "a receipt needs verifyReceipt, and none is configured"))
        }
        do {
            return .verifyReceipt(try await receipts.verify(receiptData: receiptData), locallyValid: locallyValid)
        } catch {
            return .serverAPI(ServerAPIError(.network, detail: "cancelled"))
        }
    }

    /// Get Transaction Info in production, then the sandbox; Apple's answer verified.
    public func lookUp(_ transactionID: String) async -> TransactionCheck {
        guard let serverAPI else {
            return .serverAPI(ServerAPIError(.unauthorized, detail: "no App Store Server API credentials configured"))
        }
        let verifier = self.verifier
        do {
            let (environment, transaction) = try await serverAPI.inEitherEnvironment { client in
                let answerVerifier = verifier.answers(of: client.environment)
                return try await client.verifiedTransactionInfo(transactionId: transactionID, verifier: answerVerifier)
            }
            return .verified(transaction, environment: environment.rawValue)
        } catch let error as ServerAPIError where error.kind == .transactionNotFound {
            return .notFoundAnywhere
        } catch let error as ServerAPIError {
            return .serverAPI(error)
        } catch let error as SignedDataVerificationError {
            // Apple's own answer over TLS that does not verify: a configuration problem (the roots)
            // or a man in the middle — never the purchase's fault.
            return .serverAPI(ServerAPIError(.unreadableResponse, detail: "Apple's signed answer refused: \(error.description)"))
        } catch {
            return .serverAPI(ServerAPIError(.network, detail: "\(error)"))
        }
    }
}
