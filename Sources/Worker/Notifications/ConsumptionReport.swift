import AppStoreServerAPI
import Foundation
import ReceiptQueue

/// What ReceiptQueue tells Apple about a purchase a customer asked to have refunded (Send
/// Consumption Information v2), and whether it may tell anything at all. Pure: the ledger's facts,
/// the operator's refund-preference policy and the time in, a decision out.
///
/// Only facts the ledger holds are declared, because a wrong answer can sway a refund decision:
/// delivery (granted and not revoked → `DELIVERED`; otherwise `UNDELIVERED_OTHER`), no sample
/// offered. How much was consumed is the backend's to know, not ours: `consumptionPercentage` is
/// left out. The refund preference is the operator's policy (`RefundPreferencePolicy`).
public enum ConsumptionReport {
    public enum Decision: Sendable, Hashable {
        case send(ConsumptionRequest)
        /// No consent recorded, or consent refused: Apple is told nothing.
        case noConsent
        /// The window closed: too late to answer.
        case expired
    }

    public static func decide(_ lease: ConsumptionLease, policy: RefundPreferencePolicy = .noPreference, now: Date) -> Decision {
        guard now < lease.deadline else { return .expired }
        guard lease.consented == true else { return .noConsent }
        let delivered = lease.grantedAt != nil && !lease.revoked
        return .send(ConsumptionRequest(
            customerConsented: true, sampleContentProvided: false, deliveryStatus: delivered ? .delivered : .undeliveredOther,
            consumptionPercentage: nil, refundPreference: policy.preference(delivered: delivered)))
    }
}
