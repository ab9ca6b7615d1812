/// Apple's own checks at least, for every process that accepts Apple-signed data: what its
/// library requires (an app Apple id for production) and offers (online revocation checks).
public enum AppleChecks {
    /// Refuses to start when production data signed under Apple's root would be accepted without
    /// checking that it names our app: Apple's library requires `appAppleId` for production, and
    /// so do we. A configuration that trusts only other roots (the fake App Store's test CA) can
    /// never accept Apple's production data, and is left alone.
    public static func requireAppAppleId(_ appAppleId: Int64?, roots: TrustedRoots) throws {
        guard appAppleId == nil, !roots.areTestRoots else { return }
        throw ConfigurationError("""
            --app-apple-id (or RECEIPTQ_APP_APPLE_ID) is required: with Apple's root certificate, production signed data \
            would be accepted without checking that it names your app (App Store Connect → your app → App Information → Apple ID)
            """)
    }

    /// `--online-revocation-checks`, else `RECEIPTQ_ONLINE_REVOCATION_CHECKS`, else off.
    public static func onlineRevocationChecks(_ flag: Bool, _ environment: EnvironmentReader) throws -> Bool {
        try flag || environment.flag("RECEIPTQ_ONLINE_REVOCATION_CHECKS") == true
    }
}
