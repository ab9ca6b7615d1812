extension SignedDataVerifier.Configuration {
    /// Is this payload for this app and environment? A pure decision on verified claims.
    /// A claim the payload carries is always compared; a claim its kind must carry
    /// (`requiredClaims`) and does not is a refusal. The app Apple id is compared only in production
    /// with one configured: Apple omits it in sandbox.
    public func checkClaims(of payload: some SignedPayload) throws {
        let required = type(of: payload).requiredClaims
        if let bundleId = payload.bundleId {
            guard bundleIds.contains(bundleId) else {
                throw SignedDataVerificationError(.bundleIdMismatch, "bundle id \"\(bundleId.prefix(255))\" not configured")
            }
        } else if required.contains(.bundleId) {
            throw SignedDataVerificationError(.bundleIdMismatch, "bundle id missing")
        }
        if let environment = payload.environment {
            guard environment == self.environment else {
                throw SignedDataVerificationError(.environmentMismatch, "payload from \(environment.rawValue.prefix(32)), expected \(self.environment.rawValue)")
            }
        } else if required.contains(.environment) {
            throw SignedDataVerificationError(.environmentMismatch, "environment missing")
        }
        if environment == .production, let expected = appAppleId {
            if let appAppleId = payload.appAppleId {
                guard appAppleId == expected else {
                    throw SignedDataVerificationError(.appAppleIdMismatch, "app Apple id \(appAppleId), expected \(expected)")
                }
            } else if required.contains(.appAppleId) {
                throw SignedDataVerificationError(.appAppleIdMismatch, "app Apple id missing")
            }
        }
    }
}
