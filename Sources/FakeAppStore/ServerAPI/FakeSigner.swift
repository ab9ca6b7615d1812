import AppleSignedData
import AppleTestPKI
import Foundation

/// Signs what the fake serves — transactions, renewal info, notifications — with its test CA's
/// leaf, `x5c` = leaf, WWDR-marked intermediate, root, as Apple signs with its own chain. The
/// product trusts this root only when configured to (`GET /fake/root.pem`); it never verifies
/// against Apple Root CA - G3.
public struct FakeSigner: Sendable {
    public let pki: TestPKI
    private let signer: ES256JWSSigner
    let bundleId: String

    public init(pki: TestPKI, bundleId: String) throws {
        self.pki = pki
        self.bundleId = bundleId
        self.signer = try pki.signer()
    }

    /// The root certificate as PEM: what a verifier must be configured to trust.
    public var rootCertificatePEM: String { pki.rootPEM }

    /// A StoreKit 2 / Server API style signed transaction.
    public func signTransaction(_ purchase: FakePurchase, signedAt: Date = Date()) -> String {
        sign(FakeJWSTransaction(purchase, bundleId: bundleId, signedDate: FakePurchases.milliseconds(signedAt)))
    }

    func signRenewalInfo(_ latest: FakePurchase, signedAt: Date) -> String {
        sign(FakeJWSRenewalInfo(latest, signedDate: FakePurchases.milliseconds(signedAt)))
    }

    /// A signed app transaction (Get App Transaction Info).
    func signAppTransaction(_ app: FakePurchases.AppTransaction, appAppleId: Int64, signedAt: Date) -> String {
        sign(FakeJWSAppTransaction(app, appAppleId: appAppleId, bundleId: bundleId, signedDate: FakePurchases.milliseconds(signedAt)))
    }

    func sign(_ payload: some Encodable) -> String {
        // Signing encodes a value built here and signs with a key that is valid by construction.
        (try? signer.sign(payload)) ?? ""
    }
}
