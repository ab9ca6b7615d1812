import Foundation
import Synchronization

/// What one pool is doing now, for the admin listener's `receiptq_db_pool_*` metrics: connections
/// open and in use, work waiting for a connection, and how long work waited. A pool at its size
/// with work waiting is the process's bottleneck, whatever PostgreSQL itself says.
public struct PostgresPoolStatistics: Sendable, Equatable {
    /// Connections (and threads) the pool may hold.
    public var size = 0
    /// Connections open now.
    public var open = 0
    /// Connections running work now.
    public var inUse = 0
    /// Work waiting for a free connection now.
    public var waiting = 0
    /// Work that got a connection since the pool started.
    public var acquired = 0
    /// Seconds that work waited for a connection, summed, since the pool started.
    public var waitSeconds = 0.0

    public init(size: Int = 0, open: Int = 0, inUse: Int = 0, waiting: Int = 0, acquired: Int = 0, waitSeconds: Double = 0) {
        self.size = size
        self.open = open
        self.inUse = inUse
        self.waiting = waiting
        self.acquired = acquired
        self.waitSeconds = waitSeconds
    }

    /// Two pools of one name, added (a process may open several pools for one purpose).
    public static func + (a: Self, b: Self) -> Self {
        Self(size: a.size + b.size, open: a.open + b.open, inUse: a.inUse + b.inUse, waiting: a.waiting + b.waiting,
             acquired: a.acquired + b.acquired, waitSeconds: a.waitSeconds + b.waitSeconds)
    }
}

/// Every pool of this process not yet shut down, by name: what `/metrics` reports, with no
/// wiring per command (a pool registers itself when made). Held weakly: a pool released without
/// `shutdown()` drops out at the next read. No deinit touches the lock — a pool's last reference
/// may be dropped while `statistics()` holds it.
public enum PostgresPools {
    /// The live pools' statistics, added up per name, sorted by name.
    public static func statistics() -> [(name: String, statistics: PostgresPoolStatistics)] {
        let pools = live.withLock { entries in
            entries = entries.filter { $0.value.pool != nil }
            return entries.values.compactMap(\.pool)
        }
        var byName: [String: PostgresPoolStatistics] = [:]
        for pool in pools { byName[pool.name, default: PostgresPoolStatistics()] = byName[pool.name, default: PostgresPoolStatistics()] + pool.statistics() }
        return byName.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Also drops released pools, so a process that makes many pools and is never scraped (the
    /// tests, one-shot commands) keeps no trail of them.
    static func register(_ pool: PostgresPool) {
        live.withLock { entries in
            entries = entries.filter { $0.value.pool != nil }
            entries[ObjectIdentifier(pool)] = WeakPool(pool: pool)
        }
    }

    static func unregister(_ pool: PostgresPool) {
        _ = live.withLock { $0.removeValue(forKey: ObjectIdentifier(pool)) }
    }

    private struct WeakPool: Sendable { weak var pool: PostgresPool? }
    private static let live = Mutex<[ObjectIdentifier: WeakPool]>([:])
}
