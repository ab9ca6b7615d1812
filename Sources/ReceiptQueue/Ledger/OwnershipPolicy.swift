/// What the ledger demands before a new purchase gets an owner (DESIGN: Ownership), and what it
/// records of the proof. Whatever it says, the owner is the user of the order an Apple-signed
/// appAccountToken names, when there is one; this only decides what happens to a purchase without
/// such an order.
public struct OwnershipPolicy: Sendable, Equatable {
    /// A new purchase needs an Apple-signed appAccountToken naming one of our orders; one without
    /// is held in `failed` for review instead of going to its first submitter with proof.
    /// Family-shared purchases are exempt (a family member's transaction carries no token of
    /// ours). For apps whose every version sets the token. Default false.
    public var requireAppAccountToken: Bool
    /// The worker trusts test roots instead of Apple's (`--trust-test-roots`): every grant it
    /// makes is marked `signed_under = 'test-roots'`. Default false.
    public var testRoots: Bool

    public init(requireAppAccountToken: Bool = false, testRoots: Bool = false) {
        self.requireAppAccountToken = requireAppAccountToken
        self.testRoots = testRoots
    }
}
