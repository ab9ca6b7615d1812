import Foundation

/// The contents of an app receipt: the ASN.1 payload Apple signs inside the PKCS #7 container, one
/// property per field of Apple's "Validating receipts on the device" (field type in brackets).
///
/// A plain value: the verifier returns it only after the signature, chain, bundle id and environment
/// checked out; the test PKI's receipt signer takes it as input, so the fake App Store mints and
/// decodes the same type. Every field is optional because Apple documents fields it does not always
/// send; dates are whole seconds, as Apple writes them. (Not `AppReceipt`: the `AppStore` module's
/// verifyReceipt response already has one, and the worker will import both.)
public struct AppReceiptContents: Hashable, Sendable {
    /// [0] Where the receipt was made: `Production`, `ProductionSandbox`, `Xcode`, … (see
    /// `environment`). Not in Apple's public field table, but in every receipt and in Apple's library.
    public var receiptType: String?
    /// [2] The app's bundle identifier.
    public var bundleId: String?
    /// [3] The app version (`CFBundleVersion`) the receipt was made for.
    public var appVersion: String?
    /// [4] Opaque bytes that, with the device id and the bundle id, make up `sha1Hash`.
    public var opaqueValue: [UInt8]?
    /// [5] SHA-1 binding the receipt to one device; only the device can recompute it.
    public var sha1Hash: [UInt8]?
    /// [12] When the App Store made the receipt; the signing chain is judged at this instant.
    public var creationDate: Date?
    /// [17] The in-app purchases, in the order the receipt lists them.
    public var purchases: [AppReceiptPurchase]
    /// [18] When the user first bought (downloaded) the app.
    public var originalPurchaseDate: Date?
    /// [19] The app version the user first bought.
    public var originalAppVersion: String?
    /// [21] When the receipt expires (Volume Purchase Program receipts only).
    public var expirationDate: Date?
    /// Fields of types this code does not interpret, kept raw in receipt order so that nothing Apple
    /// adds is lost (tolerated, never refused).
    public var otherAttributes: [AppReceiptAttribute]

    public init(
        receiptType: String? = nil,
        bundleId: String? = nil,
        appVersion: String? = nil,
        opaqueValue: [UInt8]? = nil,
        sha1Hash: [UInt8]? = nil,
        creationDate: Date? = nil,
        purchases: [AppReceiptPurchase] = [],
        originalPurchaseDate: Date? = nil,
        originalAppVersion: String? = nil,
        expirationDate: Date? = nil,
        otherAttributes: [AppReceiptAttribute] = []
    ) {
        self.receiptType = receiptType
        self.bundleId = bundleId
        self.appVersion = appVersion
        self.opaqueValue = opaqueValue
        self.sha1Hash = sha1Hash
        self.creationDate = creationDate
        self.purchases = purchases
        self.originalPurchaseDate = originalPurchaseDate
        self.originalAppVersion = originalAppVersion
        self.expirationDate = expirationDate
        self.otherAttributes = otherAttributes
    }
}
