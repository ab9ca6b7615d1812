import AppleSignedData
import AppleTestPKI
import Foundation

/// What one fuzz input goes through: the unverified parser, then the verifier, on the input as
/// DER and, when it is text, as base64. A refusal is fine; a crash, a hang or an acceptance of
/// content this process did not sign is a finding (`fatalError`, which libFuzzer reports).
final class FuzzHarness: Sendable {
    static let shared = try! FuzzHarness()

    let rsa: RSATestPKI
    let ec: TestPKI
    let verifier: AppReceiptVerifier
    /// The contents this process signed: the only ones a verified receipt may carry.
    let signedContents: [AppReceiptContents]
    let seeds: [[UInt8]]

    init() throws {
        var options = TestPKI.Options()
        options.names = .appleReceiptLike
        // Whole seconds, as receipts write dates, so that decoded contents compare equal.
        let reference = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        options.reference = reference
        rsa = try RSATestPKI(options)
        ec = try TestPKI(options)
        verifier = try AppReceiptVerifier(configuration: .init(
            trustedRoots: [rsa.root, ec.root], bundleIds: ["com.example.fuzz"], environments: [.production, .sandbox], now: { reference }
        ))
        let contents = FuzzSeeds.contents(createdAt: reference)
        signedContents = contents
        seeds = try FuzzSeeds.receipts(contents, rsa: rsa, ec: ec)
        for seed in seeds { precondition(run(seed), "a seed receipt does not verify") }
    }

    /// Writes this process's seed receipts (DER, and one as base64 text) into `directory`.
    func writeSeeds(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pid = ProcessInfo.processInfo.processIdentifier
        for (index, seed) in seeds.enumerated() {
            try Data(seed).write(to: directory.appendingPathComponent("seed-\(pid)-\(index).der"))
        }
        try Data(AppReceiptSigner.base64(seeds[0], lineLength: 76).utf8).write(to: directory.appendingPathComponent("seed-\(pid)-b64.txt"))
    }

    /// Runs one input; `true` if the verifier accepted it.
    @discardableResult
    func run(_ bytes: [UInt8]) -> Bool {
        _ = try? UnverifiedAppReceipt(der: bytes)
        var accepted = check(verifyBlocking { try await $0.verify(der: bytes) })
        if bytes.allSatisfy({ $0 < 0x80 }) {
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? UnverifiedAppReceipt(base64: text)
            accepted = check(verifyBlocking { try await $0.verify(base64: text) }) || accepted
        }
        return accepted
    }

    private func check(_ result: Result<AppReceiptContents, any Error>) -> Bool {
        switch result {
        case .success(let receipt):
            guard signedContents.contains(receipt) else { fatalError("accepted a receipt whose content this process never signed") }
            return true
        case .failure(let error):
            guard error is AppReceiptVerificationError else { fatalError("refused with a foreign error type: \(type(of: error))") }
            return false
        }
    }

    /// The verifier is async (chain building is); libFuzzer's callback is not.
    private func verifyBlocking(_ body: @escaping @Sendable (AppReceiptVerifier) async throws -> AppReceiptContents) -> Result<AppReceiptContents, any Error> {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let verifier = self.verifier
        Task {
            do { box.set(.success(try await body(verifier))) } catch { box.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return box.get()
    }
}

/// Hands a result from the verifying task to the blocked callback.
private final class ResultBox: @unchecked Sendable {
    // @unchecked: written once by the task before the semaphore is signalled, read after the wait.
    private var result: Result<AppReceiptContents, any Error>?
    func set(_ value: Result<AppReceiptContents, any Error>) { result = value }
    func get() -> Result<AppReceiptContents, any Error> { result! }
}
