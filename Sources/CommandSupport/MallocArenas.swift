import CMalloc

/// glibc's malloc gives threads that allocate at the same time arenas of their own, up to eight
/// per core, and memory freed into one arena is not reused by another. A worker at 5,000
/// verifications in flight measured 191–210 MB peak RSS with glibc's default and 183 MB with two
/// arenas, at no CPU cost (docs/benchmarks.md), so the long-running processes limit themselves
/// rather than rely on every deployment to set `MALLOC_ARENA_MAX`.
public enum MallocArenas {
    /// Arenas a long-running process keeps.
    public static let `default` = 2

    /// Limits glibc's malloc to `count` arenas, unless the operator set `MALLOC_ARENA_MAX` (glibc
    /// reads it itself at start, and the operator's choice wins). Call first thing in a command's
    /// `run`: arenas made before keep existing. Returns whether the limit was applied.
    @discardableResult
    public static func limit(to count: Int = Self.default, environment: EnvironmentReader = EnvironmentReader()) -> Bool {
        guard environment.string("MALLOC_ARENA_MAX") == nil, count > 0 else { return false }
        return receiptq_malloc_arena_max(Int32(clamping: count)) == 1
    }
}
