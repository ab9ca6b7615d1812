/// What a receipt, a lease or a delivery prints as, when one ends up in a log line, an error or a
/// failed test's output: ids and sizes, never receipt data or webhook secrets (a struct's default
/// description prints every field).
extension NewJob: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "NewJob(transactionID: \(transactionID), userID: \(userID), receipt: \(receiptData.utf8.count) bytes)"
    }

    public var debugDescription: String { description }
}

extension JobLease: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "JobLease(id: \(id), attempt: \(attempt), transactionID: \(transactionID), receipt: \(receiptData.utf8.count) bytes)"
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
