#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging

/// The open-files limit of this process (`RLIMIT_NOFILE`).
///
/// Every in-flight request holds a socket, and running out of descriptors shows up as connect
/// failures, not as a clear error. Executables call `raise(to:)` once at start-up with
/// (concurrency + database connections + margin).
public enum FileDescriptorLimit {
    /// The current soft limit, or `nil` if it cannot be read.
    public static var current: Int? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        return clamp(limit.rlim_cur)
    }

    /// Raises the soft limit to `wanted`, or to the hard limit if that is lower. Never lowers it.
    /// Logs a warning when the result is below `wanted`.
    /// - Returns: the soft limit in force afterwards.
    @discardableResult
    public static func raise(to wanted: Int, logger: Logger = Logger(label: "receiptq.fd-limit")) -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else {
            logger.warning("could not read the open-files limit", metadata: ["errno": "\(errno)"])
            return 0
        }
        let soft = clamp(limit.rlim_cur)
        if soft >= wanted { return soft }
        let hard = clamp(limit.rlim_max)
        let target = min(wanted, hard)
        if target > soft {
            var raised = limit
            raised.rlim_cur = rlim_t(target)
            if setrlimit(resource, &raised) != 0 {
                logger.warning(
                    "could not raise the open-files limit",
                    metadata: ["soft": "\(soft)", "wanted": "\(wanted)", "errno": "\(errno)"])
                return soft
            }
        }
        let got = max(soft, target)
        if got < wanted {
            logger.warning(
                "open-files limit is below what was asked; excess connections will fail to connect",
                metadata: ["limit": "\(got)", "wanted": "\(wanted)", "hard": "\(hard)"])
        }
        return got
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif

    private static func clamp(_ value: rlim_t) -> Int {
        value >= rlim_t(Int.max) ? Int.max : Int(value)
    }
}
