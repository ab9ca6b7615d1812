import Foundation
import Tracing

/// A moment given as a wall-clock date, for spans recorded after the fact: a batch's claim or
/// verdict write is one statement for many jobs, each job's span gets the statement's start and end.
public struct WallClockInstant: TracerInstant {
    public var nanosecondsSinceEpoch: UInt64

    public init(_ date: Date) {
        nanosecondsSinceEpoch = UInt64(max(0, date.timeIntervalSince1970 * 1_000_000_000))
    }

    public init(nanosecondsSinceEpoch: UInt64) {
        self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
    }

    public static func < (lhs: WallClockInstant, rhs: WallClockInstant) -> Bool {
        lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
    }
}
