/// What every connection of one fake server shares: its configuration, its stats, its start
/// time (outage windows are relative to it) and its Server API half.
struct FakeAppStoreCore: Sendable {
    let configuration: FakeAppStoreConfiguration
    let stats: FakeAppStoreStats
    let startedAt: ContinuousClock.Instant
    let serverAPI: FakeServerAPI

    /// Reads the JSON format and PKCS #7 receipts the Server API half's test CA signed.
    var receipts: FakeReceiptReader { FakeReceiptReader(signer: serverAPI.receiptSigner.certificate) }

    var elapsed: Duration {
        ContinuousClock.now - startedAt
    }
}
