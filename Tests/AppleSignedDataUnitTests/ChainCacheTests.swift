import AppleTestPKI
import Foundation
import Synchronization
import Testing
import X509
@testable import AppleSignedData

@Suite("Signed data: verified chains are cached, never trusted beyond their validity")
struct ChainCacheTests {
    @Test func aCachedChainGivesTheSameResultAsAFreshOne() async throws {
        let pki = try makePKI()
        let verifier = try makeVerifier(trusting: [pki.root])
        let jws = try pki.sign(transaction())
        let first = try await verifier.verifyTransaction(jws)
        #expect(verifier.cachedChainCount == 1)
        let second = try await verifier.verifyTransaction(jws)
        #expect(second == first)
        #expect(verifier.cachedChainCount == 1)
    }

    @Test func aCachedChainStillChecksEverySignatureAndClaim() async throws {
        let pki = try makePKI()
        let verifier = try makeVerifier(trusting: [pki.root])
        let jws = try pki.sign(transaction())
        _ = try await verifier.verifyTransaction(jws)
        #expect(await refusal { try await verifier.verifyTransaction(replacing(segment: 2, of: jws, with: "AAAA")) } == .badSignature)
        #expect(await refusal { try await verifier.verifyTransaction(try pki.sign(transaction(bundle: "com.example.other"))) } == .bundleIdMismatch)
    }

    @Test func aPayloadSignedAfterTheCachedChainExpiredIsValidatedInFullAndRefused() async throws {
        let leafEnd = reference.addingTimeInterval(10 * day)
        let pki = try makePKI { $0.leafValidity = reference.addingTimeInterval(-30 * day)...leafEnd }
        let verifier = try makeVerifier(trusting: [pki.root])
        _ = try await verifier.verifyTransaction(try pki.sign(transaction()))
        #expect(verifier.cachedChainCount == 1)
        let late = try pki.sign(transaction(signedAt: leafEnd.addingTimeInterval(1)))
        #expect(await refusal { try await verifier.verifyTransaction(late) } == .certificateExpired)
        let early = try pki.sign(transaction(signedAt: reference.addingTimeInterval(-31 * day)))
        #expect(await refusal { try await verifier.verifyTransaction(early) } == .certificateNotYetValid)
    }

    @Test func theCacheHoldsAtMostItsCapacityAndDropsTheLeastRecentlyUsed() async throws {
        let verifier = try await verifierTrusting(count: 3, capacity: 2)
        #expect(verifier.verifier.cachedChainCount == 0)
        for pki in verifier.pkis { _ = try await verifier.verifier.verifyTransaction(try pki.sign(transaction())) }
        #expect(verifier.verifier.cachedChainCount == 2)
    }

    @Test func manyTasksVerifyingAtOnceAllSucceed() async throws {
        let pki = try makePKI()
        let verifier = try makeVerifier(trusting: [pki.root])
        let tokens = try (0..<8).map { _ in try pki.sign(transaction()) }
        let accepted = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 { group.addTask { _ = try await verifier.verifyTransaction(tokens[index % tokens.count]); return 1 } }
            return try await group.reduce(0, +)
        }
        #expect(accepted == 200)
    }

    func verifierTrusting(count: Int, capacity: Int) async throws -> (verifier: SignedDataVerifier, pkis: [TestPKI]) {
        let pkis = try (0..<count).map { _ in try makePKI() }
        return (try makeVerifier(trusting: pkis.map(\.root), chainCacheCapacity: capacity), pkis)
    }
}

@Suite("Verified chain cache")
struct VerifiedChainCacheTests {
    @Test func theLeastRecentlyUsedEntryIsEvictedFirst() throws {
        let cache = VerifiedChainCache(capacity: 2)
        let key = LeafKey(key: try makePKI().leafKey.publicKey)
        let entry = VerifiedChainCache.Entry(leafKey: key, notBefore: .distantPast, notAfter: .distantFuture)
        let a = VerifiedChainCache.Key(header: Array("a".utf8))
        let b = VerifiedChainCache.Key(header: Array("b".utf8))
        let c = VerifiedChainCache.Key(header: Array("c".utf8))
        cache.insert(entry, for: a)
        cache.insert(entry, for: b)
        _ = cache.entry(for: a, now: reference)   // a is now more recent than b
        cache.insert(entry, for: c)
        #expect(cache.entry(for: a, now: reference) != nil)
        #expect(cache.entry(for: b, now: reference) == nil)
        #expect(cache.entry(for: c, now: reference) != nil)
    }

    @Test func anEntryDueForARevocationRecheckIsDropped() throws {
        let cache = VerifiedChainCache(capacity: 2)
        let key = LeafKey(key: try makePKI().leafKey.publicKey)
        let a = VerifiedChainCache.Key(header: Array("a".utf8))
        cache.insert(.init(leafKey: key, notBefore: .distantPast, notAfter: .distantFuture, recheckAfter: reference), for: a)
        #expect(cache.entry(for: a, now: reference.addingTimeInterval(-1)) != nil)
        #expect(cache.entry(for: a, now: reference) == nil)
        #expect(cache.count == 0)
    }
}
