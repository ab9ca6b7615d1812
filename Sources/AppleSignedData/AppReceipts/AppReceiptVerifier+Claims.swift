extension AppReceiptVerifier.Configuration {
    /// Is this verified receipt for this app and an accepted environment? A pure decision. The
    /// receipt's own values never reach the error: they are unverified input to whoever logs it.
    public func checkClaims(of receipt: AppReceiptContents) throws {
        guard let bundleId = receipt.bundleId else {
            throw AppReceiptVerificationError(.bundleIdMismatch, "bundle id missing")
        }
        guard bundleIds.contains(bundleId) else {
            throw AppReceiptVerificationError(.bundleIdMismatch, "bundle id of \(bundleId.utf8.count) bytes is not configured")
        }
        guard let environment = receipt.environment else {
            throw AppReceiptVerificationError(.environmentMismatch, receipt.receiptType == nil ? "receipt type missing" : "receipt type not recognised")
        }
        guard environments.contains(environment) else {
            let expected = environments.map(\.rawValue).sorted().joined(separator: ", ")
            throw AppReceiptVerificationError(.environmentMismatch, "receipt from \(environment.rawValue), expected \(expected)")
        }
    }
}
