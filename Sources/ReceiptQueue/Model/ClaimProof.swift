/// The bearer token a trusted transaction-id claim arrived with, handed to the database so that it
/// — not the API's login — decides whether the claim is trusted (`TrustedClaimTokens`). Never
/// stored (the trigger clears it before the row is written) and never printed: its description is
/// redacted.
public struct ClaimProof: Sendable, Hashable, CustomStringConvertible {
    let token: String

    public init(token: String) { self.token = token }

    public var description: String { "ClaimProof(redacted)" }
}
