import Foundation
import HTTPClient
import OwnershipModel
import Postgres

/// `receiptq-lab fraud --model`: generated histories against the fleet, `parallel` at a time in
/// lockstep (their users and Apple accounts are their own, so they cannot touch each other), each
/// checked against the reference model; a history that disagrees is shrunk to the shortest that
/// still does, replayed one at a time.
final class ModelRounds {
    let fleet: FraudFleet
    let http: HTTPClient
    let quiet: ModelQuiet
    let support: PostgresPool
    let generator: HistoryGenerator
    let parallel: Int
    let shrinkBudget: Int

    struct Failure: Sendable, Codable {
        var seed: UInt64
        var steps: Int
        var differences: [String]
        var shrunk: String?
        var shrunkSteps: Int?
        var shrunkDifferences: [String]?
        var shrinkRuns: Int?
    }

    struct Report: Sendable, Codable {
        var firstSeed: UInt64
        var histories = 0
        var steps = 0
        /// Steps played, by kind (a step the history left without a subject is not counted).
        var paths: [String: Int] = [:]
        /// Verdicts read at the end of submissions, by verdict.
        var verdicts: [String: Int] = [:]
        var failures: [Failure] = []
        var seconds = 0.0
        var passed: Bool { failures.isEmpty }
    }

    private var counter = 0

    init(fleet: FraudFleet, http: HTTPClient, quiet: ModelQuiet, support: PostgresPool, generator: HistoryGenerator, parallel: Int,
         shrinkBudget: Int) {
        self.fleet = fleet
        self.http = http
        self.quiet = quiet
        self.support = support
        self.generator = generator
        self.parallel = parallel
        self.shrinkBudget = shrinkBudget
    }

    /// Plays `count` histories (or until `duration` has passed, at least one batch) from `seed` on.
    func run(seed: UInt64, count: Int?, duration: Duration?, progress: (String) -> Void) async throws -> Report {
        let start = ContinuousClock.now
        var report = Report(firstSeed: seed)
        var next = seed
        while true {
            let size = count.map { min(parallel, $0 - report.histories) } ?? parallel
            guard size > 0 else { break }
            let histories = (0..<size).map { i in generator.history(seed: next &+ UInt64(i)) }
            next &+= UInt64(size)
            let players = try await play(histories)
            for player in players {
                report.histories += 1
                for (index, step) in player.history.steps.enumerated() where Self.played(step, at: index, by: player) {
                    report.steps += 1
                    report.paths[Self.kind(step), default: 0] += 1
                }
                for verdict in player.observed.finalVerdicts.values { report.verdicts[verdict, default: 0] += 1 }
                let differences = player.differences
                guard !differences.isEmpty else { continue }
                progress("history \(player.history.seed) disagrees with the model (\(differences.count) differences); shrinking")
                var failure = Failure(seed: player.history.seed, steps: player.history.steps.count, differences: differences)
                if shrinkBudget > 0 {
                    let (shrunk, runs) = try await HistoryShrinker(budget: shrinkBudget).shrink(player.history) { candidate in
                        let replayed = try await self.play([candidate])[0]
                        return !replayed.differences.isEmpty
                    }
                    let last = try await play([shrunk])[0]
                    failure.shrunk = HistoryCheck.describe(shrunk)
                    failure.shrunkSteps = shrunk.steps.count
                    failure.shrunkDifferences = last.differences
                    failure.shrinkRuns = runs
                }
                report.failures.append(failure)
            }
            progress("\(report.histories) histories, \(report.steps) steps, \(report.failures.count) disagreeing")
            if count == nil, let duration, ContinuousClock.now - start >= duration { break }
        }
        report.seconds = (ContinuousClock.now - start).seconds
        return report
    }

    /// Plays `histories` in lockstep: step i of each, then quiet, then step i + 1.
    func play(_ histories: [History]) async throws -> [ModelPlayer] {
        let players = histories.map { history in
            counter += 1
            return ModelPlayer(history: history, name: "m\(getpid() % 10_000)-\(counter)", fleet: fleet, http: http, quiet: quiet,
                               support: support)
        }
        let longest = histories.map(\.steps.count).max() ?? 0
        for index in 0..<longest {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for player in players where index < player.history.steps.count {
                    group.addTask { try await player.play(step: index) }
                }
                try await group.waitForAll()
            }
            try await quiet.wait()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for player in players { group.addTask { try await player.finish() } }
            try await group.waitForAll()
        }
        return players
    }

    /// Whether the player found something to act on at `index` (the model's view).
    static func played(_ step: Step, at index: Int, by player: ModelPlayer) -> Bool {
        switch step {
        case .submit: player.model.submissions.contains { $0.step == index }
        case .restore, .supportRevoke, .supportTransfer: player.model.answers[index] != nil
        default: true
        }
    }

    static func kind(_ step: Step) -> String {
        switch step {
        case .order: "order"
        case .buy(_, let product, let order, let short): "buy \(product.kind.rawValue)\(order == nil ? "" : " with token")\(product.isSubscription && short ? " short" : "")"
        case .renew: "renewal"
        case .upgrade(_, let order): order == nil ? "upgrade" : "upgrade with another order's token"
        case .share: "family sharing"
        case .refund: "refund"
        case .reverse: "refund reversed"
        case .deliver(let delivery): "notifications \(delivery.rawValue)"
        case .submit(_, let evidence):
            switch evidence {
            case .signed: "signed transaction"
            case .receipt(_, let from, let through, _): from == through ? "receipt, one period" : "receipt, several periods"
            case .claim(_, _, let trusted): trusted ? "transaction id, trusted" : "transaction id"
            }
        case .restore: "restore"
        case .supportGrant(_, let product): product.isSubscription ? "support grant, subscription" : "support grant"
        case .supportRevoke: "support revoke"
        case .supportTransfer: "support transfer"
        }
    }
}
