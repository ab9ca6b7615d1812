import Crypto
import Foundation
import X509

/// The header of a JWS as Apple sends it, checked for shape and parsed: `alg` ES256 and `x5c` with
/// leaf, intermediate and root-as-sent. Nothing here is trusted yet; the root as sent is parsed only
/// to reject garbage early and is never used as an anchor.
struct SigningChain {
    var leaf: Certificate
    var intermediate: Certificate
    var leafKey: LeafKey

    init(header segment: ArraySlice<UInt8>) throws {
        guard let json = Base64URL.decode(segment),
              let header = try? JSONDecoder().decode(JWSHeader.self, from: Data(json))
        else { throw SignedDataVerificationError(.malformedJWS, "header is not base64url JSON") }
        guard header.alg == "ES256" else {
            throw SignedDataVerificationError(.unsupportedAlgorithm, "alg \(header.alg.map { "\"\($0.prefix(16))\"" } ?? "missing")")
        }
        guard let x5c = header.x5c, x5c.count == 3 else {
            throw SignedDataVerificationError(.wrongChainLength, "x5c holds \(header.x5c?.count ?? 0) certificates")
        }
        let certificates = try x5c.enumerated().map { index, text in
            guard let der = Data(base64Encoded: text),
                  let certificate = UntrustedCertificate.parse(Array(der))
            else { throw SignedDataVerificationError(.unparsableCertificate, "x5c[\(index)]") }
            return certificate
        }
        guard let key = P256.Signing.PublicKey(certificates[0].publicKey) else {
            throw SignedDataVerificationError(.unparsableCertificate, "leaf key is not P-256")
        }
        leaf = certificates[0]
        intermediate = certificates[1]
        leafKey = LeafKey(key: key)
    }
}
