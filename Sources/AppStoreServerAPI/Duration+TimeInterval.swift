import Foundation

extension Duration {
    /// Seconds as a `TimeInterval`, for `Date` arithmetic.
    var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
