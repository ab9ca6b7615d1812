/// When requests with an `HTTPHedge` are due to be looked at again, soonest first. Engine thread
/// only.
///
/// A sorted array read from a moving head: requests hedged after the same delay arrive in
/// deadline order, so an insert is nearly always an append. Entries of requests that ended
/// early stay until due and are skipped then (the engine finds no request under the id).
struct HedgeTimers {
    private var entries: [(due: ContinuousClock.Instant, id: UInt64)] = []
    private var head = 0

    /// Timers not yet due or popped, ended requests' included.
    var count: Int { entries.count - head }

    /// The soonest deadline, if any.
    var nextDue: ContinuousClock.Instant? { head < entries.count ? entries[head].due : nil }

    mutating func add(_ id: UInt64, due: ContinuousClock.Instant) {
        var low = head
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].due <= due { low = middle + 1 } else { high = middle }
        }
        entries.insert((due, id), at: low)
    }

    /// The id of the soonest timer if it is due at `now`, removing it.
    mutating func popDue(now: ContinuousClock.Instant) -> UInt64? {
        guard head < entries.count, entries[head].due <= now else { return nil }
        let id = entries[head].id
        head += 1
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1_024 && head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return id
    }
}
