import Foundation

/// Which stretch of Get Notification History a recovery run reads. Pure.
///
/// From the high-water mark less `overlap` (a notification Apple signed just before the mark may
/// have been stored only after it: reading a little twice costs nothing, the store dedupes by
/// UUID) to now, never further back than Apple keeps history (180 days; a day's margin).
public struct RecoveryWindow: Sendable, Hashable {
    public var start: Date
    public var end: Date

    public static let appleKeepsHistory: TimeInterval = 180 * 86_400

    public init(checkedThrough: Date, now: Date, overlap: Duration) {
        let overlapSeconds = Double(overlap.components.seconds) + Double(overlap.components.attoseconds) / 1e18
        let oldest = now.addingTimeInterval(-Self.appleKeepsHistory + 86_400)
        start = max(oldest, min(now, checkedThrough.addingTimeInterval(-overlapSeconds)))
        end = now
    }
}
