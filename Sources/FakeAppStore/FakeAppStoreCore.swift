/// What every connection of one fake server shares: its configuration, its stats, its start
/// time (outage windows are relative to it) and its Server API half.
struct FakeAppStoreCore: Sendable {
    let configuration: FakeAppStoreConfiguration
    let stats: FakeAppStoreStats
    let startedAt: ContinuousClock.Instant
    let serverAPI: FakeServerAPI

    /// Reads the JSON format and PKCS #7 receipts the Server API half's test CA signed (made
    /// once: every verifyReceipt request reads with it), with the appAccountToken of each
    /// transaction the Server API half sold.
    let receipts: FakeReceiptReader

    init(configuration: FakeAppStoreConfiguration, stats: FakeAppStoreStats, startedAt: ContinuousClock.Instant, serverAPI: FakeServerAPI) {
        self.configuration = configuration
        self.stats = stats
        self.startedAt = startedAt
        self.serverAPI = serverAPI
        let purchases = serverAPI.purchases
        self.receipts = FakeReceiptReader(signer: serverAPI.receiptSigner.certificate,
                                          transactionSigner: { [serverAPI] in try? serverAPI.transactionReceiptSigner().certificate },
                                          accountTokens: { id in
            purchases.transaction(id, in: .production)?.appAccountToken ?? purchases.transaction(id, in: .sandbox)?.appAccountToken
        })
    }

    var elapsed: Duration {
        ContinuousClock.now - startedAt
    }
}
