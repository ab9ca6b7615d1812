/// Family Sharing: each family member's transaction is one purchase as Apple numbers it, granted
/// once, to the account that first proved it; every other account replaying it reads not-yours.
extension FraudPlay {
    func familyReplay() async throws {
        let parent = user("payer-parent"), child = user("payer-child")
        let bought = try await store.buy(appleAccount(parent), product: FraudStore.nonConsumable)
        mustGrant(bought, to: parent)
        let parentJWS = try await store.signed(bought)
        payer(parent, "the purchaser's JWS", await backend.final(await backend.signed(parentJWS, user: parent)), delivers: true)
        let shared = try await store.familyShare(bought, with: appleAccount(child))
        mustGrant(shared, to: child)
        let sharedJWS = try await store.signed(shared)
        payer(child, "the family member's shared JWS", await backend.final(await backend.signed(sharedJWS, user: child)), delivers: true)
        for index in 1...2 {
            let mallory = attacker(index)
            attacked(mallory, "the shared JWS", await backend.final(await backend.signed(sharedJWS, user: mallory)))
        }
        let twin = attacker(3)
        attacked(twin, "the shared JWS's twin signature",
                 await backend.final(await backend.signed(FraudJWS.twin(of: sharedJWS) ?? sharedJWS, user: twin)), allowed: Self.notYours + ["http 422"])
        // The purchaser's and the member's accounts are payers of their own transaction only.
        attacked(parent, "the purchaser replays the shared JWS", await backend.final(await backend.signed(sharedJWS, user: parent)))
        attacked(child, "the member replays the purchaser's JWS", await backend.final(await backend.signed(parentJWS, user: child)))
    }
}
