import Foundation

extension Duration {
    /// Whole and fractional seconds, for `Date` arithmetic.
    var seconds: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
