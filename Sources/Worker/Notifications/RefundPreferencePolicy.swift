import AppStoreServerAPI

/// What the operator wants Apple to hear about refund requests (`--refund-preference`), as
/// Apple's v2 `refundPreference`. One factor among many in Apple's decision; the product knows
/// whether it delivered, not how much the customer used, so it never asks for a prorated refund.
public enum RefundPreferencePolicy: String, Sendable, Hashable, CaseIterable {
    /// Ask Apple to decline refunds of purchases the ledger shows delivered (granted, not
    /// revoked). A purchase not delivered is sent with no preference: the product never argues
    /// against refunding what it did not deliver.
    case decline
    /// Ask Apple to grant a full refund, whatever was delivered.
    case grant
    /// State no preference (the field is left out). The default.
    case noPreference = "no-preference"

    /// The preference sent for one purchase.
    public func preference(delivered: Bool) -> ConsumptionRequest.RefundPreference? {
        switch self {
        case .decline: delivered ? .decline : nil
        case .grant: .grantFull
        case .noPreference: nil
        }
    }
}
