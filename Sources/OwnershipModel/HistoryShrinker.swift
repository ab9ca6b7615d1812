/// The shortest history that still fails, found by removing steps (delta debugging: halves,
/// then quarters, … then single steps, again until nothing more can go). Any part of a history is
/// a history — a step whose subject is gone does nothing — so every candidate can run.
///
/// Not x-sheep/swift-property-based's shrinker: its `propertyCheck` reports only through Swift
/// Testing, and the same histories must shrink in `receiptq-lab fraud --model`, a command; and a
/// history's steps depend on each other, which removal respects and element-wise shrinking does
/// not.
public struct HistoryShrinker: Sendable {
    /// At most this many candidates are run (each is a whole history against the real system).
    public var budget: Int

    public init(budget: Int = 150) {
        self.budget = budget
    }

    /// Shrinks `history`, which fails; returns the smallest failing history found and how many
    /// candidates ran.
    public func shrink(_ history: History, fails: (History) async throws -> Bool) async rethrows -> (History, tries: Int) {
        var best = history
        var tries = 0
        var chunk = max(1, best.steps.count / 2)
        while chunk >= 1 && tries < budget {
            var removed = false
            var start = 0
            while start < best.steps.count && tries < budget {
                var candidate = best
                candidate.steps.removeSubrange(start..<min(start + chunk, candidate.steps.count))
                tries += 1
                if try await fails(candidate) {
                    best = candidate
                    removed = true
                } else {
                    start += chunk
                }
            }
            if !removed { chunk /= 2 }
        }
        return (best, tries)
    }
}
