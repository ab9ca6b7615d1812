import Foundation
import X509

/// Tells an Apple notification that this configuration refused from a forgery. Apple does not
/// retry a 4xx, so a notification answered 422 is lost for good: one meant for us but refused for
/// our own mistake — a bundle id, app Apple id or environment missing from the configuration, or a
/// root we were not told to trust — must be kept (quarantined), alerted on and re-driven once the
/// configuration is fixed. Only a forgery gets a 4xx.
///
/// Apple signed it when its signature and chain verify to a configured root (the refusal was a
/// claim: bundle id, app id, environment) or to one of Apple's own roots shipped in the binary
/// (the refusal was our roots). Nothing here decides what a notification does: a quarantined one
/// is applied only after it verifies under the configuration.
public struct NotificationQuarantine: Sendable {
    private let configured: SignedDataVerifier
    private let apple: SignedDataVerifier

    /// - Parameters:
    ///   - configuredRoots: the roots notifications are verified against.
    ///   - appleRoots: the roots that prove Apple signed it whatever the configuration (default:
    ///     Apple Root CA - G3, shipped in the binary; tests give the fake's).
    public init(configuredRoots: [Certificate], appleRoots: [Certificate] = [AppleRootCertificates.appleRootCAG3]) throws {
        // Claims are not checked by verifySignature: the bundle id given here is never compared.
        configured = try SignedDataVerifier(configuration: .init(trustedRoots: configuredRoots, bundleIds: ["*"], environment: .production))
        apple = try SignedDataVerifier(configuration: .init(trustedRoots: appleRoots, bundleIds: ["*"], environment: .production))
    }

    /// The payload of a notification the configuration refused, when Apple signed it (so the
    /// refusal is only our configuration's); nil for a forgery, or bytes that are not one.
    public func appleSigned(_ signedPayload: String) async -> NotificationPayload? {
        if let payload = try? await configured.verifySignature(signedPayload, as: NotificationPayload.self) { return payload }
        return try? await apple.verifySignature(signedPayload, as: NotificationPayload.self)
    }
}
