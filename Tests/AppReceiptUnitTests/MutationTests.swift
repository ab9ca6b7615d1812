import AppleTestPKI
import Foundation
import Testing
@testable import AppleSignedData

/// SplitMix64: a seeded generator, so every run mutates the same way and a failure reproduces.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One random change to a receipt: the kinds of damage transport, storage and attackers cause.
enum Mutation: CaseIterable {
    case flipBit, replaceByte, insertBytes, deleteBytes, truncate, duplicateSlice, swapBytes

    func apply(to bytes: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        var bytes = bytes
        let at = Int.random(in: 0..<bytes.count, using: &random)
        switch self {
        case .flipBit:
            bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case .replaceByte:
            bytes[at] = UInt8.random(in: 0...255, using: &random)
        case .insertBytes:
            bytes.insert(contentsOf: (0..<Int.random(in: 1...4, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, at: at)
        case .deleteBytes:
            bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &random)))
        case .truncate:
            bytes.removeSubrange(at...)
        case .duplicateSlice:
            let slice = bytes[at..<min(bytes.count, at + Int.random(in: 1...32, using: &random))]
            bytes.insert(contentsOf: slice, at: Int.random(in: 0...bytes.count, using: &random))
        case .swapBytes:
            bytes.swapAt(at, Int.random(in: 0..<bytes.count, using: &random))
        }
        return bytes
    }
}

@Suite("App receipts: a damaged receipt is refused, never accepted, never a crash")
struct MutationTests {
    @Test func twentyThousandSeededMutationsOfValidReceiptsAreAllRefused() async throws {
        var ecOptions = TestPKI.Options()
        ecOptions.reference = reference
        let ec = try TestPKI(ecOptions)
        let verifier = try makeVerifier(trusting: [pki.root, ec.root])
        let originals = [
            try mint(),
            try mint { $0.encoding = .der; $0.signedAttributes = true; $0.digest = .sha1 },
            try mint { $0.xcodeDoubleWrap = true; $0.segmentSize = 64 },
            try mint(by: ec.receiptSigner) { $0.encoding = .der },
        ]
        for original in originals { _ = try await verifier.verify(der: original) }

        var random = SplitMix64(state: 0x5EED_2025_0615)
        var refusedBy: [AppReceiptVerificationError.Reason: Int] = [:]
        var cases = 0
        var renamed = 0
        while cases < 20_000 {
            let original = originals[cases % originals.count]
            let mutation = Mutation.allCases.randomElement(using: &random)!
            let mutated = mutation.apply(to: original, using: &random)
            guard mutated != original else { continue }
            cases += 1
            do {
                let accepted = try await verifier.verify(der: mutated)
                // The one change CMS leaves outside the signature that still means the same thing:
                // naming the hash in the signer's algorithm (rsaEncryption ↔ sha1/sha256WithRSA,
                // RFC 3370 §3.2). Anything else accepted is a hole.
                guard Self.onlyRenamesTheSignatureAlgorithm(original, mutated), accepted == sampleReceipt() else {
                    Issue.record("case \(cases): \(mutation) of receipt \(cases % originals.count) was accepted")
                    continue
                }
                renamed += 1
            } catch let error as AppReceiptVerificationError {
                refusedBy[error.reason, default: 0] += 1
            }
        }
        #expect(refusedBy.values.reduce(0, +) + renamed == 20_000)
        #expect(renamed < 5)
        // The damage reaches every layer, not just the first check.
        for reason in [AppReceiptVerificationError.Reason.truncated, .malformedEncoding, .badSignature, .unparsableCertificate] {
            #expect(refusedBy[reason, default: 0] > 0, "\(reason)")
        }
    }

    /// Whether `mutated` differs from `original` only inside the signer's RSA signature algorithm
    /// identifier (the last one in the receipt: the signer info follows the certificates).
    static func onlyRenamesTheSignatureAlgorithm(_ original: [UInt8], _ mutated: [UInt8]) -> Bool {
        let prefix: [UInt8] = [0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01]
        guard original.count == mutated.count,
              let start = (0...(original.count - prefix.count - 3)).last(where: { original[$0..<($0 + prefix.count)].elementsEqual(prefix) })
        else { return false }
        let identifier = start..<(start + prefix.count + 3)
        return original.indices.allSatisfy { identifier.contains($0) || original[$0] == mutated[$0] }
    }
}
