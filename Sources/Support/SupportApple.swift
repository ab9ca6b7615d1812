import AppStoreServerAPI
import AppleSignedData

/// The App Store Server API as support uses it: clients for both environments (sharing the
/// fleet's rate budget when the caller wires one) and a verifier per environment for what Apple
/// signs. Absent, the operations that ask Apple answer `SupportError.unavailable`.
public struct SupportApple: Sendable {
    public let clients: ServerAPIClients
    public let verifier: @Sendable (ServerAPIEnvironment) throws -> SignedDataVerifier

    public init(clients: ServerAPIClients, verifier: @escaping @Sendable (ServerAPIEnvironment) throws -> SignedDataVerifier) {
        self.clients = clients
        self.verifier = verifier
    }
}
