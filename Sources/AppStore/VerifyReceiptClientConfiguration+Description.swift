/// The configuration as it may be logged: the shared secret is only said to be set.
extension VerifyReceiptClientConfiguration: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "VerifyReceiptClientConfiguration(production: \(productionURL), sandbox: \(sandboxURL), "
            + "sharedSecret: \(sharedSecret == nil ? "not set" : "<redacted>"), timeout: \(requestTimeout))"
    }

    public var debugDescription: String { description }
}
