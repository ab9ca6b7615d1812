import Foundation
import HTTPClient
import Postgres

/// One round: every attack once, on fresh purchases and fresh users. In order:
/// 1. the StoreKit 2, token, claim, family, refund and restore attacks, all at once, both workers up;
/// 2. the receipt attacks with only the verify-receipt worker running, then only the server-api
///    one (`FraudPin`), so each verifier meets every receipt attack;
/// 3. role abuse as the scheduler's and the API's logins, on what the round left;
/// 4. the limiter lockout;
/// 5. every job of the round read again through the API.
struct FraudRound: Sendable {
    let number: Int
    let fleet: FraudFleet
    let store: FraudStore
    let tally: FraudTally
    let pool: PostgresPool
    let schedulerLogin: PostgresPool
    let apiLogin: PostgresPool
    let http: HTTPClient

    static let signedAttacks: [FraudAttack] = [
        .jwsReplay, .jwsMalleability, .tokenFirst, .tokenMismatch, .claimTokenless, .claimTokenBound, .claimTrusted, .familyReplay, .refundReplay,
        .restoreClaim, .olderPeriod, .accountSpread, .renewalCapture, .appTransactionSpread,
    ]

    /// Returns whether every receipt phase had its verifier to itself.
    func play() async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            for attack in Self.signedAttacks { group.addTask { await run(play(attack)) } }
        }
        let pin = FraudPin(fleet: fleet, pool: pool)
        var pinned = true
        for verifier in FraudFleet.Verifier.allCases {
            pinned = await pin.only(verifier) && pinned
            await withTaskGroup(of: Void.self) { group in
                for attack in FraudAttack.allCases where attack.perVerifier { group.addTask { await run(play(attack, verifier)) } }
            }
            pin.resumeAll()
        }
        let targets = await roleTargets()
        if let targets {
            await run(play(.roleScheduler)) { try await $0.schedulerAbuse(schedulerLogin, targets) }
            await run(play(.roleAPI)) { try await $0.apiAbuse(apiLogin, targets) }
        }
        await play(.limiterLockout).limiterLockout(http: http)
        await reread()
        return pinned
    }

    private func play(_ attack: FraudAttack, _ verifier: FraudFleet.Verifier? = nil) -> FraudPlay {
        FraudPlay(round: number, attack: attack, verifier: verifier, backend: fleet.backend(http), trusted: fleet.backend(http, trusted: true),
                  store: store, tally: tally, pool: pool)
    }

    /// Plays `play`'s attack (or `body`); a failure to set it up is recorded, and the run goes on.
    private func run(_ play: FraudPlay, _ body: ((FraudPlay) async throws -> Void)? = nil) async {
        do {
            if let body {
                try await body(play)
                return
            }
            switch play.attack {
            case .jwsReplay: try await play.jwsReplay()
            case .jwsMalleability: try await play.jwsMalleability()
            case .tokenFirst: try await play.tokenFirst()
            case .tokenMismatch: try await play.tokenMismatch()
            case .claimTokenless: try await play.claimTokenless()
            case .claimTokenBound: try await play.claimTokenBound()
            case .claimTrusted: try await play.claimTrusted()
            case .familyReplay: try await play.familyReplay()
            case .refundReplay: try await play.refundReplay()
            case .restoreClaim: try await play.restoreClaim()
            case .olderPeriod: try await play.olderPeriod()
            case .accountSpread: try await play.accountSpread()
            case .renewalCapture: try await play.renewalCapture()
            case .appTransactionSpread: try await play.appTransactionSpread()
            case .receiptReplay: try await play.receiptReplay()
            case .receiptTokenFirst: try await play.receiptTokenFirst()
            case .unprovableReceipt: try await play.unprovableReceipts()
            case .anotherPurchasesReceipt: try await play.anotherPurchasesReceipt()
            case .foreignReceipt: try await play.foreignReceipt()
            case .roleScheduler, .roleAPI, .limiterLockout: break
            }
        } catch {
            play.check("played to the end", false, "\(error)")
        }
    }

    /// What the round's attacks left for the role abuse to work on.
    private func roleTargets() async -> FraudPlay.RoleTargets? {
        let state = tally.snapshot()
        let mine = state.submissions.filter { $0.round == number }
        let refused = mine.filter { $0.attack == FraudAttack.jwsReplay.rawValue && $0.actor == .attacker && $0.outcome == "owned_by_another_user" }
            .compactMap(\.jobID)
        guard let payer = state.payerJobs.first(where: { $0.round == number && $0.attack == FraudAttack.jwsReplay.rawValue }) else {
            play(.roleScheduler).check("played to the end", false, "no delivered payer to forge around (jws-replay failed)")
            return nil
        }
        let attackers = Array(state.attackers.filter { $0.hasPrefix("r\(number)-") })
        let unfinished = try? await pool.query("""
            SELECT id FROM receiptq.jobs WHERE user_id = ANY($1) AND finished_at IS NULL AND state <> 'verifying' ORDER BY id LIMIT 1
            """, [attackers]).first?.decode("id", as: Int64.self)
        return FraudPlay.RoleTargets(refusedJobs: refused, payerJob: payer.jobID, unfinishedJob: unfinished,
                                     payerOrder: play(.tokenFirst).user("order"), roundJobs: mine.compactMap(\.jobID))
    }

    /// Every job of the round through the API: a payer's reads what it must (`delivered`, or
    /// `revoked` after a refund); an attacker's anything but a verdict only an owner reads.
    private func reread() async {
        let state = tally.snapshot()
        let backend = fleet.backend(http)
        for job in state.payerJobs where job.round == number {
            let verdict = await backend.status(job.jobID).outcome
            tally.reread(.init(round: number, attack: job.attack, actor: .payer, user: job.user, jobID: job.jobID, verdict: verdict,
                               held: verdict == job.finalVerdict))
        }
        var seen: Set<Int64> = []
        for submission in state.submissions where submission.round == number && submission.actor == .attacker {
            guard let id = submission.jobID, seen.insert(id).inserted else { continue }
            let answer = await backend.status(id)
            tally.reread(.init(round: number, attack: submission.attack, actor: .attacker, user: submission.user, jobID: id,
                               verdict: answer.outcome, held: answer.status == 200 && !answer.isOwning))
        }
    }
}
