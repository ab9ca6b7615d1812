import X509

/// Subject names for a test PKI. The default copies Apple's own, so the fake App Store's chains
/// look like Apple's and an attacker's look-alike chain can be built from them: trust must come
/// from keys, never from names.
public struct TestPKINames: Sendable {
    public var root: DistinguishedName
    public var intermediate: DistinguishedName
    public var leaf: DistinguishedName

    public init(root: DistinguishedName, intermediate: DistinguishedName, leaf: DistinguishedName) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
    }

    /// The subject names of Apple Root CA - G3, the WWDR G6 intermediate and the App Store
    /// receipt-signing leaf.
    public static let appleLike = TestPKINames(
        root: apple("Apple Root CA - G3", unit: "Apple Certification Authority"),
        intermediate: apple("Apple Worldwide Developer Relations Certification Authority", unit: "G6"),
        leaf: apple("Prod ECC Mac App Store and iTunes Store Receipt Signing", unit: "Apple Worldwide Developer Relations")
    )

    private static func apple(_ commonName: String, unit: String) -> DistinguishedName {
        // The builder only throws for a malformed attribute; these are constants.
        try! DistinguishedName {
            CommonName(commonName)
            OrganizationalUnitName(unit)
            OrganizationName("Apple Inc.")
            CountryName("US")
        }
    }
}
