import ArgumentParser
import BenchHistory
import CommandSupport
import Foundation
import PostgresTesting

/// `receiptq-lab bench yardstick`: the yardstick alone, measured `--runs` times in a row, with the
/// spread of its measurements (each the fastest of its loops) — how steady the instrument is that every other figure is divided by.
struct BenchYardstick: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "yardstick",
        abstract: "Measure the yardstick (P-256 verification CPU, one-row commit) N times and print its spread.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Measurements, each the fastest of --loops loops.") var runs = 10
    @Option(help: "Loops per measurement (as every bench: 5).") var loops = 5
    @Flag(help: "Print one JSON line per measurement.") var json = false

    func validate() throws {
        guard (1...100).contains(runs), (1...50).contains(loops) else { throw ValidationError("--runs must be 1…100, --loops 1…50") }
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.benchyardstick", defaultLevel: .error)
        let scratch = try await ScratchDatabase.create(server: try database.configuration(applicationName: "receiptq-bench"), purpose: "yardstick")
        var measured: [Yardstick] = []
        do {
            for _ in 0..<runs {
                let yardstick = try await YardstickProbe.measure(scratch.configuration, runs: loops)
                measured.append(yardstick)
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys]
                    print(String(decoding: try encoder.encode(yardstick), as: UTF8.self))
                } else {
                    print(yardstick.line)
                }
            }
        } catch {
            await scratch.drop()
            throw error
        }
        await scratch.drop()
        guard !json else { return }
        let p256 = Yardstick.medianAndSpread(measured.map(\.p256Microseconds))
        let commit = Yardstick.medianAndSpread(measured.map(\.commitMicroseconds))
        print(String(format: "over %d measurements (each the fastest of its loops): P-256 median %.1f µs, spread %.2f×; one-row commit median %.0f µs, spread %.2f×",
                     runs, p256.median, p256.spread, commit.median, commit.spread))
    }
}
