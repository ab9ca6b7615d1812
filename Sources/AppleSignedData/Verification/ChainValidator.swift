import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Validates an Apple signing chain (a JWS `x5c`, or the certificates of an app receipt) with
/// swift-certificates' `Verifier` against the configured roots only, and turns a failure into one
/// distinct reason.
struct ChainValidator: Sendable {
    let roots: CertificateStore
    let revocationChecking: SignedDataVerifier.RevocationChecking

    /// A chain that passed: the leaf's key, and the instants between which every certificate in
    /// the chain (as validated, with the configured root) is valid.
    struct ValidatedChain: Sendable {
        var leafKey: LeafKey
        var notBefore: Date
        var notAfter: Date
    }

    func validate(leaf: Certificate, intermediate: Certificate, at time: Date, now: Date) async throws -> ValidatedChain {
        let certificates = try await validatedChain(leaf: leaf, intermediate: intermediate, at: time, now: now)
        guard let key = P256.Signing.PublicKey(certificates[0].publicKey) else {
            throw SignedDataVerificationError(.unparsableCertificate, "leaf key is not P-256")
        }
        return ValidatedChain(
            leafKey: LeafKey(key: key),
            notBefore: certificates.map(\.notValidBefore).max()!,
            notAfter: certificates.map(\.notValidAfter).min()!
        )
    }

    /// The validated chain — leaf, intermediate, the configured root — whatever the leaf's key type:
    /// JWS leaves are P-256 (checked by `validate`), app receipt leaves are RSA.
    func validatedChain(leaf: Certificate, intermediate: Certificate, at time: Date, now: Date) async throws -> [Certificate] {
        let result: CertificateValidationResult
        switch revocationChecking {
        case .off:
            var verifier = Verifier(rootCertificates: roots) {
                RFC5280Policy(fixedExpiryValidationTime: time)
                AppleChainPolicy()
            }
            result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        case .ocsp(let requester, _):
            var verifier = Verifier(rootCertificates: roots) {
                RFC5280Policy(fixedExpiryValidationTime: time)
                RFC5280Policy(fixedExpiryValidationTime: now)
                AppleChainPolicy()
                RevocationPolicy(ocsp: OCSPVerifierPolicy(failureMode: .hard, requester: ExistentialOCSPRequester(base: requester), fixedExpiryValidationTime: now))
            }
            result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        }
        switch result {
        case .validCertificate(let chain):
            return Array(chain)
        case .couldNotValidate(let failures):
            let instants = if case .off = revocationChecking { [time] } else { [time, now] }
            throw Self.reason(for: failures, judgedAt: instants)
        }
    }

    /// The chain builder reports a policy failure only for a path that reached a trusted root with
    /// good signatures; with no such path, nothing here is trusted. For a path that broke a policy,
    /// the Apple markers are checked first, then validity at each instant the chain was judged at
    /// (`signedDate`, and now when revocation is checked).
    static func reason(for failures: [CertificateValidationResult.PolicyFailure], judgedAt instants: [Date]) -> SignedDataVerificationError {
        guard let failure = failures.first else {
            return SignedDataVerificationError(.chainNotTrusted, "no path to a trusted root")
        }
        let chain = Array(failure.chain)
        if chain.count != 3 {
            return SignedDataVerificationError(.chainNotTrusted, "path of \(chain.count) certificates to a trusted root")
        }
        if !AppleChainPolicy.carries(AppleChainPolicy.intermediateOID, chain[1]) {
            return SignedDataVerificationError(.intermediateOIDMissing)
        }
        if !AppleChainPolicy.carries(AppleChainPolicy.leafOID, chain[0]) {
            return SignedDataVerificationError(.leafOIDMissing)
        }
        for instant in instants {
            if let expired = chain.firstIndex(where: { $0.notValidAfter < instant }) {
                return SignedDataVerificationError(.certificateExpired, "certificate \(expired) of the chain, at \(instant)")
            }
            if let early = chain.firstIndex(where: { $0.notValidBefore > instant }) {
                return SignedDataVerificationError(.certificateNotYetValid, "certificate \(early) of the chain, at \(instant)")
            }
        }
        let message = failure.policyFailureReason.description
        if message.hasPrefix(revocationMarker) {
            return SignedDataVerificationError(.revocationCheckFailed, message)
        }
        return SignedDataVerificationError(.chainNotTrusted, message)
    }
}

private let revocationMarker = "revocation: "

/// Marks OCSP's refusals so that `reason(for:judgedAt:)` can tell them from other policy failures
/// (swift-certificates reports every policy failure as text).
private struct RevocationPolicy<Inner: VerifierPolicy>: VerifierPolicy {
    var ocsp: Inner
    var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { ocsp.verifyingCriticalExtensions }

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        switch await ocsp.chainMeetsPolicyRequirements(chain: chain) {
        case .meetsPolicy: .meetsPolicy
        case .failsToMeetPolicy(let reason): .failsToMeetPolicy(reason: revocationMarker + reason.description)
        }
    }
}

/// `OCSPVerifierPolicy` is generic over a concrete requester; the configuration holds any.
private struct ExistentialOCSPRequester: OCSPRequester {
    let base: any OCSPRequester

    func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
        await base.query(request: request, uri: uri)
    }
}
