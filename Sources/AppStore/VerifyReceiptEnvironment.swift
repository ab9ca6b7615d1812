/// Which of Apple's two verifyReceipt servers answered (or should be asked).
/// Production is always asked first; see `ReceiptClassification.switchEnvironment`.
public enum VerifyReceiptEnvironment: String, Sendable, Codable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
}
