import Crypto
import Foundation
import Synchronization

/// Signing chains that already passed validation, so that steady-state verification is one ECDSA
/// check and JSON decoding rather than certificate parsing and chain building.
///
/// Keyed by the SHA-256 of the JWS header segment: the header holds `alg` and the `x5c` strings,
/// so a hit means the exact header that was validated before (ES256, these three certificates) and
/// the header need not even be parsed. Each entry keeps the window in which its whole chain is valid;
/// a payload signed outside it is validated in full. Bounded: the least recently used entry goes.
final class VerifiedChainCache: Sendable {
    struct Entry: Sendable {
        var leafKey: LeafKey
        var notBefore: Date
        var notAfter: Date
        /// With online revocation checks, when the chain must be checked again.
        var recheckAfter: Date?
        var lastUse: UInt64 = 0

        func covers(_ instant: Date) -> Bool { notBefore <= instant && instant <= notAfter }
    }

    /// The SHA-256 of a header segment, as four words (swift-crypto 3's digest is not `Sendable`).
    struct Key: Hashable, Sendable {
        let words: (UInt64, UInt64, UInt64, UInt64)

        init(header: some DataProtocol) {
            words = SHA256.hash(data: header).withUnsafeBytes { bytes in
                (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                 bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            }
        }

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.words == rhs.words }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    private struct State: Sendable {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The entry for `key`, unless it is due for a revocation re-check at `now`.
    func entry(for key: Key, now: Date) -> Entry? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            if let recheckAfter = entry.recheckAfter, now >= recheckAfter {
                state.entries[key] = nil
                return nil
            }
            state.clock &+= 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry
        }
    }

    func insert(_ entry: Entry, for key: Key) {
        state.withLock { state in
            if state.entries[key] == nil, state.entries.count >= capacity,
               let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                state.entries[oldest] = nil
            }
            state.clock &+= 1
            var entry = entry
            entry.lastUse = state.clock
            state.entries[key] = entry
        }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
