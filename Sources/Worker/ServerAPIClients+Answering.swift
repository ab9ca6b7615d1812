import AppStoreServerAPI
import AppleSignedData

extension ServerAPIClients {
    /// The client for an environment as the database stores it (`Sandbox`; anything else is
    /// production), and the verifier of that environment's signed answers.
    func answering(in storedEnvironment: String, verifiedBy verifier: SignedTransactionVerifier)
        -> (client: AppStoreServerAPIClient, verifier: SignedDataVerifier) {
        let environment: ServerAPIEnvironment = storedEnvironment == ServerAPIEnvironment.sandbox.rawValue ? .sandbox : .production
        return (client(for: environment), verifier.answers(of: environment))
    }
}

extension SignedTransactionVerifier {
    /// The verifier of what Apple signs in `environment`. With the sandbox refused, a sandbox
    /// answer meets the production verifier, which refuses it (environment mismatch).
    func answers(of environment: ServerAPIEnvironment) -> SignedDataVerifier {
        environment == .production ? production : (sandbox ?? production)
    }
}
