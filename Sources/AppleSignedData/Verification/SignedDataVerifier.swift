import Crypto
import Foundation
import X509

/// Verifies Apple's signed data — StoreKit 2 transactions, renewal info, Server Notifications V2 —
/// and decodes it. A payload is returned only if all of this holds:
///
/// 1. it is a compact JWS whose header `alg` is `ES256` and whose `x5c` holds three certificates;
/// 2. leaf → intermediate chains to a configured root (never to the root the message sent), the
///    intermediate and leaf carry Apple's OIDs, and every certificate was valid at the payload's
///    `signedDate` (and, with revocation checking, is valid and unrevoked now);
/// 3. the ES256 signature over `header.payload` verifies with the leaf's P-256 key;
/// 4. the payload is for a configured bundle id, the configured environment and, in production,
///    the configured app Apple id.
///
/// Otherwise it throws `SignedDataVerificationError` with one distinct reason. Verified chains are
/// cached (`VerifiedChainCache`). Safe to share between tasks.
public final class SignedDataVerifier: Sendable {
    public let configuration: Configuration
    private let chains: ChainValidator
    private let cache: VerifiedChainCache

    public init(configuration: Configuration) throws {
        guard !configuration.bundleIds.isEmpty else { throw ConfigurationError.noBundleIds }
        guard !configuration.trustedRoots.isEmpty else { throw ConfigurationError.noTrustedRoots }
        guard configuration.chainCacheCapacity > 0 else { throw ConfigurationError.chainCacheCapacityNotPositive }
        self.configuration = configuration
        self.chains = ChainValidator(roots: CertificateStore(configuration.trustedRoots), revocationChecking: configuration.revocationChecking)
        self.cache = VerifiedChainCache(capacity: configuration.chainCacheCapacity)
    }

    /// Verifies `jws` and decodes its payload as `Payload`.
    public func verify<Payload: SignedPayload>(_ jws: String, as type: Payload.Type = Payload.self) async throws -> Payload {
        let payload = try await verifySignature(jws, as: type)
        try configuration.checkClaims(of: payload)
        return payload
    }

    /// Steps 1–3 only: who signed `jws` (the signature, and the chain to a configured root), not
    /// whom it is for. For telling Apple's payload for another configuration from a forgery
    /// (`NotificationQuarantine`); never enough to act on.
    public func verifySignature<Payload: SignedPayload>(_ jws: String, as type: Payload.Type = Payload.self) async throws -> Payload {
        let token = try CompactJWS(jws)
        let now = configuration.now()
        let cacheKey = VerifiedChainCache.Key(header: token.headerSegment)
        let cached = cache.entry(for: cacheKey, now: now)
        // A cached header was accepted before (ES256, three certificates), so its key can be used
        // at once; otherwise the header and certificates are parsed, and the chain validated below.
        let sent: SigningChain?
        let signingKey: LeafKey
        if let cached {
            (sent, signingKey) = (nil, cached.leafKey)
        } else {
            let chain = try SigningChain(header: token.headerSegment)
            (sent, signingKey) = (chain, chain.leafKey)
        }
        try Self.checkSignature(token, with: signingKey.key)
        let payload = try Self.decode(token, as: type)
        // A payload without signedDate is judged now, as Apple's library does.
        let validationTime = payload.signedAt ?? now

        if !(cached?.covers(validationTime) ?? false) {
            let chain = try sent ?? SigningChain(header: token.headerSegment)
            let validated = try await chains.validate(leaf: chain.leaf, intermediate: chain.intermediate, at: validationTime, now: now)
            guard validated.leafKey == chain.leafKey else {
                throw SignedDataVerificationError(.badSignature, "validated leaf key differs from the signing key")
            }
            cache.insert(.init(leafKey: validated.leafKey, notBefore: validated.notBefore, notAfter: validated.notAfter, recheckAfter: recheckAfter(now)), for: cacheKey)
        }
        return payload
    }

    /// Verifies a `signedTransactionInfo` or StoreKit 2 `jwsRepresentation`.
    public func verifyTransaction(_ jws: String) async throws -> TransactionPayload {
        try await verify(jws, as: TransactionPayload.self)
    }

    /// Verifies a `signedRenewalInfo`.
    public func verifyRenewalInfo(_ jws: String) async throws -> RenewalInfoPayload {
        try await verify(jws, as: RenewalInfoPayload.self)
    }

    /// Verifies a Server Notification V2 `signedPayload`. The JWS inside `data` are not verified here.
    public func verifyNotification(_ jws: String) async throws -> NotificationPayload {
        try await verify(jws, as: NotificationPayload.self)
    }

    /// A JWS carried inside a payload this verifier has just verified (a notification's
    /// `signedTransactionInfo`, `signedRenewalInfo`, `signedAppTransactionInfo`): decoded and its
    /// claims checked (bundle id, environment, app id), its own signature and chain not.
    ///
    /// Why that is enough: the notification's signature covers these bytes exactly as Apple
    /// wrote them, and that signature was verified with a chain to a configured root, so the
    /// bytes are Apple's. A second ES256 verification of them adds no assurance and cost ~15 %
    /// of the API's CPU per notification (`bench notifications`). Internal on purpose: only
    /// `SignedTransactionVerifier.verifyNotification` calls it, on bytes taken from a payload it
    /// verified. A header or payload that does not parse is still refused.
    func decodeCovered<Payload: SignedPayload>(_ jws: String, as type: Payload.Type) throws -> Payload {
        let payload = try Self.decode(try CompactJWS(jws), as: type)
        try configuration.checkClaims(of: payload)
        return payload
    }

    /// How many verified signing chains are cached now.
    public var cachedChainCount: Int { cache.count }

    private func recheckAfter(_ now: Date) -> Date? {
        guard case .ocsp(_, let interval) = configuration.revocationChecking else { return nil }
        return now.addingTimeInterval(interval.seconds)
    }

    static func checkSignature(_ token: CompactJWS, with key: P256.Signing.PublicKey) throws {
        guard let raw = Base64URL.decode(token.signatureSegment), raw.count == 64,
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
        else { throw SignedDataVerificationError(.badSignature, "signature is not 64 bytes of r||s") }
        guard key.isValidSignature(signature, for: token.signingInput) else {
            throw SignedDataVerificationError(.badSignature)
        }
    }

    static func decode<Payload: SignedPayload>(_ token: CompactJWS, as type: Payload.Type) throws -> Payload {
        guard let json = Base64URL.decode(token.payloadSegment) else {
            throw SignedDataVerificationError(.payloadNotDecodable, "payload is not base64url")
        }
        do {
            return try JSONDecoder().decode(type, from: Data(json))
        } catch {
            throw SignedDataVerificationError(.payloadNotDecodable, "payload is not a JSON object")
        }
    }
}
