import AppleSignedData
import Foundation
import Hummingbird
import ReceiptQueue

/// POST /v1/apple/notifications: App Store Server Notifications V2, the URL registered in App
/// Store Connect. No bearer token: Apple's signature is the authentication. The notification is
/// verified — signed payload, certificate chain to the roots configured (never one in the
/// message), bundle id, environment, app id, and the claims of the transaction and renewal info
/// inside (their bytes are covered by the notification's signature; the worker that applies it
/// verifies each on its own as well) — and committed (group commit, deduplicated by `notificationUUID`) before the 200, so an answered
/// notification is a kept one.
///
/// Answers: 200 stored (or stored before: Apple's retry) — every type Apple sends, including
/// those whose app identity is in `externalPurchaseToken`, `appData` or `summary`; 200 and
/// `quarantined` when Apple signed it but this configuration refuses it (another bundle id, app
/// id or environment, a root not configured: `NotificationQuarantine`) — kept, alerted on,
/// applied once re-driven after the fix, never lost to a 4xx Apple would not retry; 422 only
/// for a forgery or bytes that are not a notification (nothing stored); 503 when this API cannot
/// verify notifications (started without bundle ids) or the database is down — Apple retries
/// those, after about 1, 12, 24, 48 and 72 hours, and the history recovery fills any gap.
struct NotificationRoutes<Context: RequestContext> {
    /// Apple's notifications are a few KiB (three certificates and two nested JWS).
    static var maxBodyBytes: Int { 64 * 1024 }

    let configuration: APIConfiguration
    let groupCommit: GroupCommit<NewNotification, Bool>
    let metrics: APIMetrics

    func register(on router: Router<Context>) {
        router.post("v1/apple/notifications") { request, _ in try await receive(request) }
    }

    struct Body: Decodable {
        var signedPayload: String
    }

    struct Answer: Encodable {
        var notificationUuid: String
        var notificationType: String
        var stored: Bool
        /// Kept, not applied: Apple signed it, this configuration refuses it (`reason`).
        var quarantined: Bool?
        var reason: String?
    }

    func receive(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(Body.self, from: request, limit: Self.maxBodyBytes)
        let notification = try await verify(body.signedPayload)
        let created = try await groupCommit.submit(notification)
        metrics.notificationReceived(notification.quarantineReason == nil ? "stored" : "quarantined")
        return try JSONBody.response(Answer(notificationUuid: notification.uuid.uuidString.lowercased(),
                                            notificationType: notification.type, stored: created,
                                            quarantined: notification.quarantineReason == nil ? nil : true,
                                            reason: notification.quarantineReason), status: .ok)
    }

    /// The notification as it is stored, or a 422 naming why it was refused (never the payload).
    private func verify(_ signedPayload: String) async throws -> NewNotification {
        guard let verifier = configuration.signedTransactions else {
            throw Problem(.notificationsNotConfigured, "start the API with --bundle-ids (and the roots it trusts) to take notifications",
                          retryAfter: 3600)
        }
        let verified: VerifiedNotification
        do {
            // The JWS inside are taken on the notification's signature: this only stores it, and a
            // worker verifies it again in full before applying it.
            verified = try await verifier.verifyNotification(signedPayload, nested: .coveredByTheNotification)
        } catch let error as SignedDataVerificationError {
            if let held = await quarantined(signedPayload, refusal: error) { return held }
            metrics.notificationReceived("refused")
            throw Problem(.invalidNotification, error.description)
        }
        let identity: VerifiedNotification.Identity
        do {
            identity = try verified.identity()
        } catch let error as SignedDataVerificationError {
            throw Problem(.invalidNotification, error.description)
        }
        return NewNotification(identity, environment: verified.environment.rawValue, signedPayload: signedPayload, source: .endpoint)
    }

    /// A notification Apple signed that this configuration refused, to be kept quarantined with
    /// the refusal as its reason; nil for a forgery, or one without what it is stored by.
    private func quarantined(_ signedPayload: String, refusal: SignedDataVerificationError) async -> NewNotification? {
        guard let quarantine = configuration.notificationQuarantine, let payload = await quarantine.appleSigned(signedPayload),
              let identity = try? VerifiedNotification(payload: payload, environment: .production).identity(),
              let environment = payload.environment, [.production, .sandbox].contains(environment) else { return nil }
        return NewNotification(identity, environment: environment.rawValue, signedPayload: signedPayload, source: .endpoint,
                               quarantineReason: "this configuration refused Apple's notification: \(refusal.description)")
    }
}

extension NewNotification {
    init(_ identity: VerifiedNotification.Identity, environment: String, signedPayload: String, source: Source,
         quarantineReason: String? = nil) {
        self.init(uuid: identity.uuid, type: identity.type, subtype: identity.subtype, environment: environment,
                  signedDate: identity.signedAt, originalTransactionID: identity.originalTransactionID,
                  transactionID: identity.transactionID, signedPayload: signedPayload, source: source,
                  quarantineReason: quarantineReason)
    }
}
