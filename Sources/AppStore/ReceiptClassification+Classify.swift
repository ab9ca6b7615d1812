import Foundation

extension ReceiptClassification {
    /// Classifies one verifyReceipt answer. Pure: the same input always gives the same output.
    ///
    /// The rules (DESIGN.md, "Apple's status codes"): 0 and 21006 valid; 21007 → sandbox; 21008 →
    /// production; 21003, 21010 reject; 21004 configuration error; 21002, 21000, 21005, 21009,
    /// 21100–21199, any HTTP status but 200, a body that is not JSON, and any unknown status →
    /// retry later. Nothing unknown ever rejects.
    /// - Parameters:
    ///   - httpStatus: the HTTP status of the response.
    ///   - body: the response body as received.
    public static func classify(httpStatus: Int, body: [UInt8]) -> ReceiptClassification {
        guard httpStatus == 200 else { return .retryLater(.httpStatus(httpStatus)) }
        let decoder = JSONDecoder()
        guard let response = try? decoder.decode(VerifyReceiptResponse.self, from: Data(body)) else {
            return .retryLater(.unreadableResponse)
        }
        return classify(response)
    }

    /// Classifies a response already decoded (the status table without the HTTP layer).
    public static func classify(_ response: VerifyReceiptResponse) -> ReceiptClassification {
        switch response.status {
        case VerifyReceiptStatus.valid, VerifyReceiptStatus.validSubscriptionExpired:
            // A valid status without a receipt is not something we can grant from.
            guard response.receipt != nil else { return .retryLater(.unreadableResponse) }
            return .valid(response)
        case VerifyReceiptStatus.sandboxReceiptOnProduction:
            return .switchEnvironment(to: .sandbox)
        case VerifyReceiptStatus.productionReceiptOnSandbox:
            return .switchEnvironment(to: .production)
        case VerifyReceiptStatus.malformedOrTemporary:
            return .retryLater(.malformedOrTemporary)
        case VerifyReceiptStatus.notAuthentic:
            return .reject(.notAuthentic)
        case VerifyReceiptStatus.accountNotFound:
            return .reject(.accountNotFound)
        case VerifyReceiptStatus.unreadableRequest:
            return .retryLater(.unreadableRequest)
        case VerifyReceiptStatus.sharedSecretMismatch:
            return .configurationError(.sharedSecretMismatch)
        case VerifyReceiptStatus.serverUnavailable, VerifyReceiptStatus.internalDataAccess,
             VerifyReceiptStatus.internalErrors:
            return .retryLater(.appleServerError(status: response.status, isRetryable: response.isRetryable))
        default:
            return .retryLater(.unknownStatus(response.status))
        }
    }
}
