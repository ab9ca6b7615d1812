import CLibFuzzer
import Foundation

/// Fuzzes the app receipt parser and verifier (issue 16) with libFuzzer.
///
/// A plain `swift build` compiles this as a replay tool: `receipt-fuzz FILE…` runs each file
/// through the same harness once. The fuzzer is the same target built with coverage and
/// AddressSanitizer:
///
///     swift build -c release --product receipt-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
///     RECEIPT_FUZZ_SEEDS=corpus .build/release/receipt-fuzz corpus -max_total_time=600
///
/// With `RECEIPT_FUZZ_SEEDS`, each process first writes receipts minted by its own throwaway PKI
/// into that directory: only those can pass the signature and chain, so only they reach the
/// payload decoder and the acceptance oracle.
@main
enum ReceiptFuzz {
    static func main() throws {
        if let directory = ProcessInfo.processInfo.environment["RECEIPT_FUZZ_SEEDS"] {
            try FuzzHarness.shared.writeSeeds(to: URL(fileURLWithPath: directory))
        }
        #if FUZZING
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, receiptFuzzOneInput))
        #else
        var replayed = 0
        for path in CommandLine.arguments.dropFirst() {
            for file in inputs(at: URL(fileURLWithPath: path)) {
                guard let bytes = try? Data(contentsOf: file) else {
                    FileHandle.standardError.write(Data("receipt-fuzz: cannot read \(file.path)\n".utf8))
                    exit(2)
                }
                FuzzHarness.shared.run(Array(bytes))
                replayed += 1
            }
        }
        print("receipt-fuzz: replayed \(replayed) inputs without a crash (a fuzzing build needs -sanitize=fuzzer,address -DFUZZING)")
        #endif
    }
}

/// A file, or the files of a directory (a corpus).
private func inputs(at url: URL) -> [URL] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else { return [url] }
    let files = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? []
    return files.sorted { $0.path < $1.path }
}

/// libFuzzer's callback: one input through the harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func receiptFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarness.shared.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
