import Foundation

/// A Server Notification V2 with everything inside it verified: the outer `signedPayload`, and
/// the transaction and renewal info it carries (each a JWS of its own, checked by the verifier of
/// the notification's environment).
public struct VerifiedNotification: Sendable, Hashable {
    public var payload: NotificationPayload
    public var environment: AppStoreEnvironment
    public var transaction: TransactionPayload?
    /// `data.signedTransactionInfo` as Apple signed it: a purchase it reports is queued as this.
    public var signedTransactionInfo: String?
    public var renewal: RenewalInfoPayload?
    /// RESCIND_CONSENT: the customer's signed app transaction (`appData.signedAppTransactionInfo`).
    public var appTransaction: AppTransactionPayload?

    public init(payload: NotificationPayload, environment: AppStoreEnvironment, transaction: TransactionPayload? = nil,
                signedTransactionInfo: String? = nil, renewal: RenewalInfoPayload? = nil) {
        self.payload = payload
        self.environment = environment
        self.transaction = transaction
        self.signedTransactionInfo = signedTransactionInfo
        self.renewal = renewal
    }
}

extension SignedTransactionVerifier {
    /// How the JWS inside a notification (transaction, renewal info, app transaction) are checked.
    public enum NestedJWS: Sendable {
        /// Each verified on its own as well: signature, chain to a configured root, claims. For
        /// whoever acts on the notification (the worker grants, revokes and renews by it).
        case verifiedOnTheirOwn
        /// Decoded and their claims checked; their bytes are Apple's because the notification's
        /// verified signature covers them (`SignedDataVerifier.decodeCovered`). For the API's
        /// intake, which only stores the notification: a worker verifies it again in full before
        /// applying it.
        case coveredByTheNotification
    }

    /// Verifies a notification's `signedPayload` with the verifier of the environment it claims
    /// (production first; the sandbox when accepted), then the JWS inside it with the same one
    /// (`nested`). Throws `SignedDataVerificationError` for a forgery, another app's or an
    /// unaccepted environment's notification.
    public func verifyNotification(_ signedPayload: String, nested: NestedJWS = .verifiedOnTheirOwn) async throws -> VerifiedNotification {
        let (payload, environment, verifier): (NotificationPayload, AppStoreEnvironment, SignedDataVerifier)
        do {
            (payload, environment, verifier) = (try await production.verifyNotification(signedPayload), .production, production)
        } catch let error as SignedDataVerificationError where error.reason == .environmentMismatch {
            guard let sandbox else { throw error }
            (payload, environment, verifier) = (try await sandbox.verifyNotification(signedPayload), .sandbox, sandbox)
        }
        func open<Payload: SignedPayload>(_ jws: String, as type: Payload.Type) async throws -> Payload {
            switch nested {
            case .verifiedOnTheirOwn: try await verifier.verify(jws, as: type)
            case .coveredByTheNotification: try verifier.decodeCovered(jws, as: type)
            }
        }
        var verified = VerifiedNotification(payload: payload, environment: environment)
        if let jws = payload.data?.signedTransactionInfo {
            verified.transaction = try await open(jws, as: TransactionPayload.self)
            verified.signedTransactionInfo = jws
        }
        if let jws = payload.data?.signedRenewalInfo {
            verified.renewal = try await open(jws, as: RenewalInfoPayload.self)
        }
        if let jws = payload.appData?.signedAppTransactionInfo {
            verified.appTransaction = try await open(jws, as: AppTransactionPayload.self)
        }
        return verified
    }
}

extension VerifiedNotification {
    /// What a notification is stored and ordered by. Every V2 notification carries these; one
    /// that does not is refused (`payloadNotDecodable`), never stored half-known.
    public struct Identity: Sendable, Hashable {
        public var uuid: UUID
        public var type: String
        public var subtype: String?
        public var signedAt: Date
        public var originalTransactionID: String?
        public var transactionID: String?
    }

    public func identity() throws -> Identity {
        guard let text = payload.notificationUUID, let uuid = UUID(uuidString: text) else {
            throw SignedDataVerificationError(.payloadNotDecodable, "the notification carries no notificationUUID")
        }
        guard let signedAt = payload.signedAt else {
            throw SignedDataVerificationError(.payloadNotDecodable, "the notification carries no signedDate")
        }
        guard let type = payload.notificationType, (1...64).contains(type.utf8.count) else {
            throw SignedDataVerificationError(.payloadNotDecodable, "the notification carries no notificationType")
        }
        return Identity(uuid: uuid, type: type, subtype: payload.subtype.map { String($0.prefix(64)) }, signedAt: signedAt,
                        originalTransactionID: transaction?.originalTransactionId ?? renewal?.originalTransactionId,
                        transactionID: transaction?.transactionId)
    }
}
