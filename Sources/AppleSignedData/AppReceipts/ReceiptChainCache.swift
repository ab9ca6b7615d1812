import Crypto
import Foundation
import Synchronization

/// Receipt signing chains that already passed validation, so that steady-state verification is one
/// signature check and the payload's decoding rather than certificate parsing and chain building.
///
/// Keyed by the SHA-256 of the certificates field and the signer identifier exactly as sent: a hit
/// means these very certificates, this very signer, validated before — so the certificates need not
/// even be parsed. Each entry keeps the window in which its whole chain is valid; a receipt created
/// outside it is validated in full. Bounded: the least recently used entry goes.
final class ReceiptChainCache: Sendable {
    struct Entry: Sendable {
        var signerKey: ReceiptSignerKey
        var notBefore: Date
        var notAfter: Date
        var lastUse: UInt64 = 0

        func covers(_ instant: Date) -> Bool { notBefore <= instant && instant <= notAfter }
    }

    typealias Key = VerifiedChainCache.Key

    private struct State: Sendable {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    static func key(for signedData: CMSSignedData) -> Key {
        var hasher = SHA256()
        hasher.update(data: signedData.certificatesField)
        hasher.update(data: signedData.signer.identifierField)
        return Key(digest: hasher.finalize())
    }

    func entry(for key: Key) -> Entry? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
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

extension VerifiedChainCache.Key {
    /// The key for a digest computed over several parts (the JWS cache hashes one header).
    init(digest: SHA256.Digest) {
        words = digest.withUnsafeBytes { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        }
    }
}
