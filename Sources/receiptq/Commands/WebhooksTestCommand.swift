import ArgumentParser
import CommandSupport
import Foundation
import HTTPClient
import Postgres
import ReceiptQueue
import WebhookSignature

extension WebhooksCommand {
    /// `receiptq webhooks test ENDPOINT`: one `webhook.test` event, signed with the endpoint's
    /// secrets exactly as deliveries are (`WebhookDeliveryHeaders`), POSTed now, and the
    /// receiver's answer printed. It only reads the endpoint: nothing is written to the outbox, so
    /// the order and retries of real events are untouched, and the feed never shows it.
    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a signed webhook.test event to an endpoint now and print the receiver's answer.",
            discussion: """
                The event is signed with the endpoint's secrets like every delivery (webhook-id, webhook-timestamp, \
                webhook-signature; and the deprecated ReceiptQueue-Signature) and has the shape of every event: \
                {"id", "sequence": 0, "type": "webhook.test", "created_at", "user_id": "", "data": {"endpoint_id", "note"}}. \
                It is sent once, whether the endpoint is enabled or not, and never stored: real events keep their order. \
                Exit status 0 when the receiver answered 2xx, 1 otherwise (a real event would be retried).
                """)

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The endpoint id (see `receiptq webhooks list`).") var endpoint: String
        @Option(help: "Time allowed for the receiver's answer. Default: 10s.") var timeout: Duration?
        @Option(help: "PEM file of the CAs that verify the receiver's TLS certificate Default: the system's CAs.") var caBundle: String?

        func run() async throws {
            let timeout = self.timeout ?? .seconds(10)
            LogSetup.bootstrap(label: "receiptq.webhooks", defaultLevel: .error)
            guard timeout > .zero, timeout <= .seconds(300) else { throw ValidationError("--timeout must be within 0…300 s") }
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-webhooks"), size: 1)
            defer { pool.shutdown() }
            let endpoints = try await pool.withConnection { try ListWebhookEndpoints.run(on: $0) }
            guard let endpoint = endpoints.first(where: { $0.id == self.endpoint }) else {
                let known = endpoints.map(\.id).joined(separator: ", ")
                throw ValidationError("no webhook endpoint \(self.endpoint) (endpoints: \(known.isEmpty ? "none" : known))")
            }
            let event = WebhookTestEvent(endpointID: endpoint.id)
            let headers = WebhookDeliveryHeaders.make(eventID: event.id, body: event.body, secrets: endpoint.secrets,
                                                      timestamp: Int64(Date().timeIntervalSince1970))
            let http = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 1, defaultTimeout: timeout, caBundlePath: caBundle))
            let started = ContinuousClock.now
            let outcome: Result<HTTPResponse, HTTPClientError>
            do {
                outcome = .success(try await http.post(url: endpoint.url, headers: headers, body: event.body, timeout: timeout))
            } catch let error as HTTPClientError {
                outcome = .failure(error)
            }
            let elapsed = ContinuousClock.now - started
            await http.shutdown()
            let target = "\(endpoint.id) (\(endpoint.url))\(endpoint.enabled ? "" : ", disabled")"
            switch outcome {
            case .success(let response) where (200...299).contains(response.status):
                print("webhook.test \(event.id) to \(target): HTTP \(response.status) in \(Self.milliseconds(elapsed)) ms — acknowledged")
            case .success(let response):
                print("webhook.test \(event.id) to \(target): HTTP \(response.status) in \(Self.milliseconds(elapsed)) ms — not acknowledged "
                      + "(only a 2xx is; a real event would be retried)\(Self.hint(response.status))")
                throw ExitCode.failure
            case .failure(let error):
                print("webhook.test \(event.id) to \(target): no answer after \(Self.milliseconds(elapsed)) ms — \(error)")
                throw ExitCode.failure
            }
        }

        static func milliseconds(_ duration: Duration) -> Int64 {
            duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        }

        static func hint(_ status: Int) -> String {
            switch status {
            case 401, 403: "; the receiver refused the signature: does it hold the endpoint's secret, and verify the raw body?"
            case 404: "; check the endpoint's URL"
            default: ""
            }
        }
    }
}

/// The body of a `webhook.test` event: the shape of every event, `sequence` 0 (real events start
/// at 1) and an empty `user_id` (it belongs to no user).
struct WebhookTestEvent {
    let id: String
    /// The exact bytes sent and signed.
    let body: [UInt8]

    init(endpointID: String, now: Date = Date()) {
        id = UUID().uuidString.lowercased()
        let formatter = ISO8601DateFormatter()   // UTC
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let object: [String: Any] = [
            "id": id, "sequence": 0, "type": "webhook.test", "created_at": formatter.string(from: now), "user_id": "",
            "data": ["endpoint_id": endpointID, "note": "sent by receiptq webhooks test; answer 2xx, act on nothing"],
        ]
        body = Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
    }
}
