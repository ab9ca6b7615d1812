import AppleSignedData
import ArgumentParser
import Foundation

/// The In-App Purchase key from App Store Connect (`.p8`), its key id and its issuer id: the one
/// key both the App Store Server API (workers, scheduler, support) and offer signatures (the API)
/// use, so every process reads it from the same options and variables
/// (`RECEIPTQ_APP_STORE_KEY_FILE`, `RECEIPTQ_APP_STORE_KEY_ID`, `RECEIPTQ_APP_STORE_ISSUER_ID`).
/// The key's text is read here and never printed.
public struct InAppPurchaseKeyOptions: ParsableArguments, Sendable {
    @Option(help: "The App Store Connect In-App Purchase key file (.p8).")
    public var appStoreKeyFile: String?

    @Option(help: "The key's id (its file is AuthKey_<KEY_ID>.p8).")
    public var appStoreKeyId: String?

    @Option(help: "The issuer id from App Store Connect → Users and Access → Integrations.")
    public var appStoreIssuerId: String?

    public init() {}

    /// The key file's path, from the option or its variable; nil when none is configured.
    public func keyFile(_ environment: EnvironmentReader = EnvironmentReader()) -> String? {
        appStoreKeyFile ?? environment.string("RECEIPTQ_APP_STORE_KEY_FILE")
    }

    /// The issuer id, from the option or its variable; nil when none is configured.
    public func issuerId(_ environment: EnvironmentReader = EnvironmentReader()) -> String? {
        appStoreIssuerId ?? environment.string("RECEIPTQ_APP_STORE_ISSUER_ID")
    }

    /// The key, read and checked; nil when no key file is configured. A key file without its id,
    /// an unreadable file or a key that is not P-256 is an error naming the setting.
    public func key(_ environment: EnvironmentReader = EnvironmentReader()) throws -> AppStoreConnectKey? {
        guard let keyFile = keyFile(environment) else { return nil }
        guard let keyId = appStoreKeyId ?? environment.string("RECEIPTQ_APP_STORE_KEY_ID") else {
            throw ConfigurationError("no key id: pass --app-store-key-id or set RECEIPTQ_APP_STORE_KEY_ID")
        }
        guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
            throw ConfigurationError("--app-store-key-file / RECEIPTQ_APP_STORE_KEY_FILE: cannot read \(keyFile)")
        }
        do {
            return try AppStoreConnectKey(pem: pem, keyId: keyId)
        } catch {
            throw ConfigurationError("--app-store-key-file / RECEIPTQ_APP_STORE_KEY_FILE: \(error)")
        }
    }
}
