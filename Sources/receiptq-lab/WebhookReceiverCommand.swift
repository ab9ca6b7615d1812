import ArgumentParser
import CommandSupport
import Foundation
import WebhookReceiver

/// `receiptq-lab webhook-receiver`: a backend's webhook endpoint on loopback, for trying webhooks
/// by hand (`receiptq webhooks add --url http://127.0.0.1:PORT/events …`). It checks every
/// signature, and can be made slow or flaky; prints what it acknowledged once a second.
struct WebhookReceiverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook-receiver", abstract: "Receive webhooks on loopback, checking signatures; optionally slow or flaky.")

    @Option(help: "Port (0: any free one; the URL is printed).") var port = 9300
    @Option(help: "File with the secret(s) the endpoint was added with, one per line.") var secretFile: String
    @Option(help: "Answer after this long.") var latency: Duration = .zero
    @Option(help: "Share of deliveries answered 500, 0…1.") var failureRate = 0.0

    func run() async throws {
        guard let text = try? String(contentsOfFile: secretFile, encoding: .utf8) else {
            throw ConfigurationError("--secret-file: cannot read \(secretFile)")
        }
        let secrets = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !secrets.isEmpty else { throw ConfigurationError("--secret-file holds no secret") }
        guard (0...1).contains(failureRate) else { throw ValidationError("--failure-rate must be within 0…1") }
        let receiver = try await WebhookReceiver.start(port: port, secrets: secrets,
                                                       behaviour: .init(latency: latency, failureRate: failureRate))
        print("receiving at \(receiver.url)")
        var last = 0
        while true {
            try await Task.sleep(for: .seconds(1))
            let acknowledged = receiver.acknowledged
            if acknowledged.count != last {
                print("\(acknowledged.count) acknowledged (\(acknowledged.count - last) new), \(receiver.refusedSignatures) bad signatures, "
                      + "\(receiver.answeredFailures) answered 500; last: \(acknowledged.last.map { "\($0.type) #\($0.sequence)" } ?? "-")")
                last = acknowledged.count
            }
        }
    }
}
