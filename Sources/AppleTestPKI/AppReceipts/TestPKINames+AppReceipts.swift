import X509

extension TestPKINames {
    /// The subject names of the chain that signs app receipts: the Apple Inc. Root, the WWDR G5
    /// intermediate and the receipt signing leaf. With `RSATestPKI` this is a look-alike of Apple's
    /// receipt chain: trust must come from keys, never from names.
    public static let appleReceiptLike = TestPKINames(
        root: receiptName("Apple Root CA", unit: "Apple Certification Authority"),
        intermediate: receiptName("Apple Worldwide Developer Relations Certification Authority", unit: "G5"),
        leaf: receiptName("Mac App Store and iTunes Store Receipt Signing", unit: "Apple Worldwide Developer Relations")
    )

    private static func receiptName(_ commonName: String, unit: String) -> DistinguishedName {
        // The builder only throws for a malformed attribute; these are constants.
        try! DistinguishedName {
            CommonName(commonName)
            OrganizationalUnitName(unit)
            OrganizationName("Apple Inc.")
            CountryName("US")
        }
    }
}
