/// Which jobs of one enqueue batch repeat an earlier job of the same batch, in time linear in the
/// batch whatever its content. Pure: `BatchDedupeTests` counts its comparisons.
///
/// Why two levels: hashing a whole receipt (6 KiB typical) for every job cost about 3 % of the
/// CPU of `bench api`, so jobs are first keyed by transaction id and receipt length only. That
/// alone let a client drive the batch quadratic: receipts of equal length for one transaction
/// all share a key, and each new one was compared in full with every one before it. So a key
/// seen twice turns into a table keyed by a hash of the whole job (seeded per process: it cannot
/// be crafted to collide), and a full comparison happens only between jobs whose whole hashes
/// are equal — in practice, identical jobs.
public struct BatchDedupe: Sendable, Equatable {
    /// For each job, the index of its first occurrence in the batch (itself when it is one).
    public var firstOccurrence: [Int]
    /// Full comparisons of two jobs made while planning (for tests: at most one per job in practice).
    public var comparisons: Int

    /// Whether the job at `index` repeats an earlier one.
    public func isRepeat(_ index: Int) -> Bool { firstOccurrence[index] != index }

    private struct ShortKey: Hashable {
        let kind: JobKind
        let transactionID: String
        let payloadLength: Int
    }

    public init(_ jobs: [NewJob]) {
        var firstOfKey: [ShortKey: Int] = [:]
        firstOfKey.reserveCapacity(jobs.count)
        // Keys seen with two different jobs: their first occurrences by whole hash. Mutated in
        // place through the subscripts (a copy per insertion would be quadratic again).
        var tables: [ShortKey: [Int: [Int]]] = [:]
        var first: [Int] = []
        first.reserveCapacity(jobs.count)
        var comparisons = 0
        func same(_ a: Int, _ b: Int) -> Bool {
            comparisons += 1
            return jobs[a] == jobs[b]
        }
        for (index, job) in jobs.enumerated() {
            let key = ShortKey(kind: job.kind, transactionID: job.transactionID,
                               payloadLength: (job.receiptData ?? job.signedTransaction ?? "").utf8.count)
            if tables[key] != nil {
                let hash = Self.wholeHash(job)
                if let match = tables[key]?[hash]?.first(where: { same($0, index) }) {
                    first.append(match)
                } else {
                    tables[key, default: [:]][hash, default: []].append(index)
                    first.append(index)
                }
            } else if let earlier = firstOfKey[key] {
                if same(earlier, index) {
                    first.append(earlier)
                } else {
                    tables[key, default: [:]][Self.wholeHash(jobs[earlier]), default: []].append(earlier)
                    tables[key, default: [:]][Self.wholeHash(job), default: []].append(index)
                    first.append(index)
                }
            } else {
                firstOfKey[key] = index
                first.append(index)
            }
        }
        self.firstOccurrence = first
        self.comparisons = comparisons
    }

    /// Every field, the payloads' bytes straight from their contiguous UTF-8 (hashing a `String`
    /// goes through Unicode normalisation and is several times slower).
    static func wholeHash(_ job: NewJob) -> Int {
        var hasher = Hasher()
        hasher.combine(job.kind)
        hasher.combine(job.transactionID)
        hasher.combine(job.userID)
        hasher.combine(job.productID)
        hasher.combine(job.orderID)
        hasher.combine(job.appAccountToken)
        hasher.combine(job.environment)
        hasher.combine(job.trustedClaim)
        for payload in [job.receiptData, job.signedTransaction] {
            guard var payload else { hasher.combine(0 as UInt8); continue }
            hasher.combine(1 as UInt8)
            payload.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
        return hasher.finalize()
    }
}
