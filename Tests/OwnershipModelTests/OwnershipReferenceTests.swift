import OwnershipModel
import Testing

/// The reference model says what DESIGN: Ownership says, on the histories of issue 42's attacks and
/// the paths around them. The product is checked against it by `receiptq-lab fraud --model`.
@Suite("Ownership model: what each submitter is owed")
struct OwnershipReferenceTests {
    static func play(_ steps: [Step]) -> OwnershipReference {
        var model = OwnershipReference()
        for (index, step) in steps.enumerated() { model.apply(step, at: index) }
        return model
    }

    static func verdicts(_ model: OwnershipReference) -> [String] { model.submissions.map(\.verdict) }

    @Test func anOlderPeriodOfSomeoneElsesSubscriptionIsNeverTheirs() {
        let model = Self.play([
            .buy(customer: 0, product: .basic, order: nil, short: true),
            .renew(purchase: 0, short: false),
            .submit(user: 0, evidence: .receipt(purchase: 0, from: 0, through: 1, period: 1)),
            .submit(user: 1, evidence: .receipt(purchase: 0, from: 0, through: 1, period: 0)),
            .submit(user: 2, evidence: .signed(purchase: 0, period: 0)),
        ])
        #expect(Self.verdicts(model) == ["delivered", "owned_by_another_user", "owned_by_another_user"])
        #expect(model.entitlements(of: 0) == [.basic])
        #expect(model.entitlements(of: 1).isEmpty && model.entitlements(of: 2).isEmpty)
    }

    @Test func oneSubscriptionRenewedUnderThreeAccountsIsTheFirstOnes() {
        let model = Self.play([
            .buy(customer: 0, product: .basic, order: nil, short: true),
            .submit(user: 0, evidence: .signed(purchase: 0, period: 0)),
            .renew(purchase: 0, short: true),
            .submit(user: 1, evidence: .signed(purchase: 0, period: 1)),
            .renew(purchase: 0, short: false),
            .submit(user: 2, evidence: .signed(purchase: 0, period: 2)),
            .submit(user: 0, evidence: .signed(purchase: 0, period: 2)),
        ])
        #expect(Self.verdicts(model) == ["delivered", "owned_by_another_user", "owned_by_another_user", "delivered"])
        #expect(model.entitlements(of: 0) == [.basic] && model.entitlements(of: 1).isEmpty && model.entitlements(of: 2).isEmpty)
    }

    @Test func aRenewalNotifiedGoesToTheOwnerNotToWhoeverSubmittedLast() {
        let model = Self.play([
            .buy(customer: 0, product: .basic, order: nil, short: true),
            .deliver(.inOrder),                                                   // SUBSCRIBED: nobody owns it yet
            .submit(user: 0, evidence: .signed(purchase: 0, period: 0)),
            .submit(user: 1, evidence: .signed(purchase: 0, period: 0)),
            .renew(purchase: 0, short: false),
            .deliver(.inOrder),                                                   // DID_RENEW: the owner's
            .restore(user: 1, purchase: 0),
            .restore(user: 0, purchase: 0),
        ])
        #expect(Self.verdicts(model) == ["delivered", "owned_by_another_user"])
        #expect(model.ledger.grants[.period(0, 1)]?.user == 0)
        #expect(model.answers[6] == false && model.answers[7] == true)
        #expect(model.entitlements(of: 0) == [.basic])
    }

    @Test func anUpgradeWithAnotherAccountsPendingOrderMovesEverything() {
        let model = Self.play([
            .buy(customer: 0, product: .basic, order: nil, short: false),
            .submit(user: 0, evidence: .signed(purchase: 0, period: 0)),
            .order(user: 1, product: .premium),
            .upgrade(purchase: 0, order: 0),
            .submit(user: 0, evidence: .signed(purchase: 0, period: 1)),
            .submit(user: 1, evidence: .signed(purchase: 0, period: 1)),
        ])
        #expect(Self.verdicts(model) == ["delivered", "owned_by_another_user", "delivered"])
        #expect(model.ledger.owners[0] == 1 && model.ledger.grants[.period(0, 0)]?.user == 1)
        #expect(model.ledger.verdict(model.submissions[0].job) == "owned_by_another_user", "the first job reads the move")
        #expect(model.entitlements(of: 1) == [.premium] && model.entitlements(of: 0).isEmpty)
    }

    @Test func aTransferHoldsAgainstTheTokenEveryRenewalRepeats() {
        let model = Self.play([
            .order(user: 0, product: .basic),
            .buy(customer: 0, product: .basic, order: 0, short: true),
            .submit(user: 0, evidence: .signed(purchase: 0, period: 0)),
            .supportTransfer(purchase: 0, to: 1),
            .renew(purchase: 0, short: false),
            .submit(user: 0, evidence: .signed(purchase: 0, period: 1)),
            .submit(user: 1, evidence: .signed(purchase: 0, period: 1)),
        ])
        #expect(Self.verdicts(model) == ["delivered", "owned_by_another_user", "delivered"])
        #expect(model.answers[3] == true)
    }

    @Test func aBareClaimProvesNothingUntilOwnershipIsProvenButTheOwnersNextPeriodIsTheirs() {
        let model = Self.play([
            .buy(customer: 0, product: .basic, order: nil, short: true),
            .submit(user: 1, evidence: .claim(purchase: 0, period: 0, trusted: false)),
            .submit(user: 0, evidence: .signed(purchase: 0, period: 0)),
            .renew(purchase: 0, short: false),
            .submit(user: 0, evidence: .claim(purchase: 0, period: 1, trusted: false)),
            .submit(user: 1, evidence: .claim(purchase: 0, period: 1, trusted: true)),
        ])
        #expect(Self.verdicts(model) == ["resubmit", "delivered", "delivered", "owned_by_another_user"])
    }

    @Test func refundsFollowSigningOrderWhateverTheDeliveryOrder() {
        let model = Self.play([
            .buy(customer: 0, product: .pro, order: nil, short: false),
            .submit(user: 0, evidence: .signed(purchase: 0, period: 0)),
            .refund(purchase: 0),
            .reverse(purchase: 0),
            .deliver(.reversed),
        ])
        #expect(model.ledger.verdict(model.submissions[0].job) == "delivered", "the reversal was signed last: it stands")
        #expect(model.entitlements(of: 0) == [.pro])
        let dropped = Self.play([
            .buy(customer: 0, product: .pro, order: nil, short: false),
            .submit(user: 0, evidence: .signed(purchase: 0, period: 0)),
            .refund(purchase: 0),
            .deliver(.inOrder),
            .submit(user: 1, evidence: .signed(purchase: 0, period: 0)),
        ])
        #expect(dropped.ledger.verdict(dropped.submissions[0].job) == "revoked")
        #expect(dropped.submissions[1].verdict == "not_paid")
    }

    @Test func familyMembersOwnTheirOwnCopy() {
        let model = Self.play([
            .buy(customer: 0, product: .pro, order: nil, short: false),
            .share(purchase: 0, member: 1),
            .submit(user: 0, evidence: .signed(purchase: 0, period: 0)),
            .submit(user: 1, evidence: .signed(purchase: 1, period: 0)),
            .submit(user: 2, evidence: .signed(purchase: 1, period: 0)),
        ])
        #expect(Self.verdicts(model) == ["delivered", "delivered", "owned_by_another_user"])
        #expect(model.entitlements(of: 1) == [.pro])
    }

    @Test func aSupportGrantOfASubscriptionIsAnEntitlement() {
        let model = Self.play([.supportGrant(user: 3, product: .premium), .supportGrant(user: 3, product: .coins)])
        #expect(model.entitlements(of: 3) == [.premium])
    }
}

@Suite("Ownership model: generated histories and their shrinking")
struct HistoryGeneratorTests {
    @Test func aSeedAlwaysMakesTheSameHistoryAndSeedsDiffer() {
        let generator = HistoryGenerator()
        #expect(generator.history(seed: 42) == generator.history(seed: 42))
        #expect(generator.history(seed: 42) != generator.history(seed: 43))
    }

    @Test func historiesReachEveryPath() {
        let generator = HistoryGenerator()
        var kinds: Set<String> = []
        var deliveries: Set<Delivery> = []
        var evidence: Set<String> = []
        for seed in 0..<300 as Range<UInt64> {
            for step in generator.history(seed: seed).steps {
                kinds.insert(String(describing: step).prefix { $0 != "(" }.description)
                if case .deliver(let d) = step { deliveries.insert(d) }
                if case .submit(_, let e) = step { evidence.insert(String(describing: e).prefix { $0 != "(" }.description) }
            }
        }
        #expect(kinds.count == 13, "\(kinds.sorted())")
        #expect(deliveries == Set(Delivery.allCases))
        #expect(evidence == ["signed", "receipt", "claim"])
    }

    /// Any part of a history is a history: removing steps never breaks the model.
    @Test func everyPartOfAHistoryRuns() {
        let generator = HistoryGenerator()
        var random = SplitMix64(seed: 7)
        for seed in 0..<200 as Range<UInt64> {
            var history = generator.history(seed: seed)
            while history.steps.count > 1 {
                history.steps.remove(at: random.int(in: 0...(history.steps.count - 1)))
                var model = OwnershipReference()
                for (index, step) in history.steps.enumerated() { model.apply(step, at: index) }
                #expect(model.submissions.count <= history.steps.count)
            }
        }
    }

    @Test func theShrinkerFindsTheStepsThatMatter() async {
        let history = HistoryGenerator().history(seed: 11)
        let needles = Array(history.steps.indices.shuffled().prefix(2)).sorted()
        let wanted = needles.map { history.steps[$0] }
        let (shrunk, tries) = await HistoryShrinker(budget: 500).shrink(history) { candidate in
            var at = 0
            for step in candidate.steps where at < wanted.count && step == wanted[at] { at += 1 }
            return at == wanted.count
        }
        #expect(shrunk.steps == wanted, "from \(history.steps.count) steps in \(tries) tries")
    }
}
