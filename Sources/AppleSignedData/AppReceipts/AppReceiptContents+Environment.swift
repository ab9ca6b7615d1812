extension AppReceiptContents {
    /// The environment the receipt type names: `Production` and `ProductionVPP` are production,
    /// `ProductionSandbox` and `ProductionVPPSandbox` the sandbox (TestFlight, App Review), `Xcode`
    /// StoreKit testing. `nil` for a type this code does not know, which no configuration accepts:
    /// an unexpected value must never pass for a match.
    public var environment: AppStoreEnvironment? {
        switch receiptType {
        case "Production", "ProductionVPP": .production
        case "ProductionSandbox", "ProductionVPPSandbox": .sandbox
        case "Xcode": .xcode
        default: nil
        }
    }

    /// The receipt type Apple writes for receipts of `environment`: what a minted receipt carries.
    public static func receiptType(for environment: AppStoreEnvironment) -> String {
        switch environment {
        case .production: "Production"
        case .sandbox: "ProductionSandbox"
        case .xcode: "Xcode"
        case .localTesting: "LocalTesting"
        case .unknown(let value): value
        }
    }
}
