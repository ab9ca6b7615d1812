/// What a receipt, a lease or a delivery prints as, when one ends up in a log line, an error or a
/// failed test's output: ids and sizes, never receipt data or webhook secrets (a struct's default
/// description prints every field).
extension NewJob: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "NewJob(kind: \(kind.rawValue), transactionID: \(transactionID), userID: \(userID), "
            + "payload: \((receiptData ?? signedTransaction ?? "").utf8.count) bytes)"
    }

    public var debugDescription: String { description }
}

extension JobLease: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "JobLease(id: \(id), kind: \(kind.rawValue), attempt: \(attempt), transactionID: \(transactionID), "
            + "payload: \((signedTransaction ?? receiptData).utf8.count) bytes)"
    }

    public var debugDescription: String { description }
}

extension DeliveryLease: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "DeliveryLease(endpoint: \(endpointID), event: \(eventSequence), attempt: \(attempt), \(secrets.count) secret(s))"
    }

    public var debugDescription: String { description }
}

extension WebhookEndpoint: CustomDebugStringConvertible {
    public var debugDescription: String { description }
}
