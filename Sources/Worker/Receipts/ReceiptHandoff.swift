import Synchronization

/// A claimed receipt on its way from the claim batch to its verification, taken exactly once.
///
/// A verification holds its job for Apple's 3–6 s; whatever it captures lives that long. Captured
/// in the lease, the receipt's base64 (several KiB) lived beside the request body made from it —
/// two copies per verification in flight. The verification takes the receipt from here for the
/// local check and the request body, and from then on the body is the only copy.
final class ReceiptHandoff: Sendable {
    private let receipt: Mutex<String?>

    init(_ receiptData: String) { receipt = Mutex(receiptData) }

    /// The receipt, once; "" afterwards.
    func take() -> String {
        receipt.withLock { receipt in
            defer { receipt = nil }
            return receipt ?? ""
        }
    }
}
