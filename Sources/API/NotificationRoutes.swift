import AppleSignedData
import Foundation
import Hummingbird
import ReceiptQueue

/// POST /v1/apple/notifications: App Store Server Notifications V2, the URL registered in App
/// Store Connect. No bearer token: Apple's signature is the authentication. The notification is
/// verified — signed payload, certificate chain to the roots configured (never one in the
/// message), bundle id, environment, app id, and the transaction and renewal info inside — and
/// committed (group commit, deduplicated by `notificationUUID`) before the 200, so an answered
/// notification is a kept one.
///
/// Answers: 200 stored (or stored before: Apple's retry); 422 forged, foreign or malformed
/// (nothing stored: Apple does not retry a 4xx, and should not); 503 when this API cannot verify
/// notifications (started without bundle ids) or the database is down — Apple retries those,
/// after about 1, 12, 24, 48 and 72 hours, and the history recovery fills any gap.
struct NotificationRoutes<Context: RequestContext> {
    /// Apple's notifications are a few KiB (three certificates and two nested JWS).
    static var maxBodyBytes: Int { 64 * 1024 }

    let configuration: APIConfiguration
    let groupCommit: GroupCommit<NewNotification, Bool>

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
    }

    func receive(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(Body.self, from: request, limit: Self.maxBodyBytes)
        let notification = try await verify(body.signedPayload)
        let created = try await groupCommit.submit(notification)
        return try JSONBody.response(Answer(notificationUuid: notification.uuid.uuidString.lowercased(),
                                            notificationType: notification.type, stored: created), status: .ok)
    }

    /// The notification as it is stored, or a 422 naming why it was refused (never the payload).
    private func verify(_ signedPayload: String) async throws -> NewNotification {
        guard let verifier = configuration.signedTransactions else {
            throw Problem(.notificationsNotConfigured, "start the API with --bundle-ids (and the roots it trusts) to take notifications",
                          retryAfter: 3600)
        }
        let verified: VerifiedNotification
        do {
            verified = try await verifier.verifyNotification(signedPayload)
        } catch let error as SignedDataVerificationError {
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
}

extension NewNotification {
    init(_ identity: VerifiedNotification.Identity, environment: String, signedPayload: String, source: Source) {
        self.init(uuid: identity.uuid, type: identity.type, subtype: identity.subtype, environment: environment,
                  signedDate: identity.signedAt, originalTransactionID: identity.originalTransactionID,
                  transactionID: identity.transactionID, signedPayload: signedPayload, source: source)
    }
}
