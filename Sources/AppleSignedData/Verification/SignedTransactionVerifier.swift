import Foundation
import X509

/// Verifies a StoreKit 2 transaction from whichever environment signed it: production, or the
/// sandbox when sandbox purchases are accepted (App Review and TestFlight buy there with
/// production builds). The payload's own `environment` claim picks the verifier; each verifier
/// still checks it, so a sandbox purchase can never pass as a production one.
public struct SignedTransactionVerifier: Sendable {
    public let production: SignedDataVerifier
    /// nil when sandbox purchases are refused.
    public let sandbox: SignedDataVerifier?

    /// - Parameter revocationChecking: online revocation checks for both environments (default off).
    public init(trustedRoots: [Certificate] = [AppleRootCertificates.appleRootCAG3], bundleIds: Set<String>,
                appAppleId: Int64? = nil, acceptSandbox: Bool = true, revocationChecking: SignedDataVerifier.RevocationChecking = .off) throws {
        production = try SignedDataVerifier(configuration: .init(trustedRoots: trustedRoots, bundleIds: bundleIds,
                                                                 environment: .production, appAppleId: appAppleId,
                                                                 revocationChecking: revocationChecking))
        sandbox = acceptSandbox
            ? try SignedDataVerifier(configuration: .init(trustedRoots: trustedRoots, bundleIds: bundleIds, environment: .sandbox,
                                                          revocationChecking: revocationChecking))
            : nil
    }

    /// The verified transaction and the environment that signed it. Throws
    /// `SignedDataVerificationError` (`environmentMismatch` for a sandbox purchase when the sandbox
    /// is refused, and for Xcode or local-testing transactions).
    public func verify(_ jws: String) async throws -> (transaction: TransactionPayload, environment: AppStoreEnvironment) {
        do {
            return (try await production.verifyTransaction(jws), .production)
        } catch let error as SignedDataVerificationError where error.reason == .environmentMismatch {
            guard let sandbox else { throw error }
            return (try await sandbox.verifyTransaction(jws), .sandbox)
        }
    }

    /// The verified app transaction (StoreKit 2's `AppTransaction`, the customer's download of
    /// the app) and the environment that signed it, checked as a transaction is: chain, bundle
    /// id, environment (`receiptType`), and the app Apple id in production.
    public func verifyAppTransaction(_ jws: String) async throws -> (appTransaction: AppTransactionPayload, environment: AppStoreEnvironment) {
        do {
            return (try await production.verify(jws, as: AppTransactionPayload.self), .production)
        } catch let error as SignedDataVerificationError where error.reason == .environmentMismatch {
            guard let sandbox else { throw error }
            return (try await sandbox.verify(jws, as: AppTransactionPayload.self), .sandbox)
        }
    }
}
