/// The headers of one webhook POST, for the deliverer and `receiptq webhooks test` alike: the
/// Standard Webhooks three (`StandardWebhookSignature`), and — until the deprecation ends (see
/// docs/quickstart.md, "Webhooks") — the headers ReceiptQueue sent before, `ReceiptQueue-Event-Id`
/// and `ReceiptQueue-Signature` (`WebhookSignature`), signed with the same secrets, so receivers
/// that check those keep working unchanged.
public enum WebhookDeliveryHeaders {
    public static let userAgent = "ReceiptQueue-Webhooks/1"
    /// The deprecated event id header (the same value as `webhook-id`).
    public static let legacyEventIDHeader = "ReceiptQueue-Event-Id"

    /// Every header of the POST of `body` (the event `eventID`) signed at `timestamp` with `secrets`.
    public static func make(eventID: String, body: [UInt8], secrets: [String], timestamp: Int64) -> [String: String] {
        [
            "Content-Type": "application/json",
            "User-Agent": userAgent,
            StandardWebhookSignature.idHeader: eventID,
            StandardWebhookSignature.timestampHeader: String(timestamp),
            StandardWebhookSignature.signatureHeader: StandardWebhookSignature.sign(
                id: eventID, timestamp: timestamp, body: body, secrets: secrets.map(WebhookSecret.init)),
            legacyEventIDHeader: eventID,
            WebhookSignature.header: WebhookSignature.sign(body: body, secrets: secrets, timestamp: timestamp),
        ]
    }
}
