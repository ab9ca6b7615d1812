import AppleSignedData

/// Which of Apple's two App Store Server API hosts a client talks to. A transaction lives in one
/// environment only: a client asks production first and, when Apple answers
/// `TransactionIdNotFound`, the sandbox (App Review buys in the sandbox with production builds).
public enum ServerAPIEnvironment: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case production = "Production"
    case sandbox = "Sandbox"

    /// The environment to try when a transaction is not found in this one.
    public var other: ServerAPIEnvironment {
        switch self {
        case .production: .sandbox
        case .sandbox: .production
        }
    }

    /// The environment a signed payload from this host names, for `SignedDataVerifier`.
    public var signedDataEnvironment: AppStoreEnvironment {
        switch self {
        case .production: .production
        case .sandbox: .sandbox
        }
    }

    public var description: String { rawValue }
}
