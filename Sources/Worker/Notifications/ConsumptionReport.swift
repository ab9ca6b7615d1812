import AppStoreServerAPI
import Foundation
import ReceiptQueue

/// What ReceiptQueue tells Apple about a purchase a customer asked to have refunded, and
/// whether it may tell anything at all. Pure: the ledger's facts and the time in, a decision out.
///
/// Only facts the ledger holds are declared; the rest stay 0 ("undeclared", as Apple allows),
/// because a wrong answer can sway a refund decision: delivery (granted and not revoked →
/// delivered and working; not granted → not delivered), the customer's tenure since their first
/// grant, their lifetime purchases and refunds in US dollars (other currencies unconverted, so the
/// bands are lower bounds), the app's appAccountToken, and the platform (Apple). How much was
/// consumed, play time and account status are the backend's to know, not ours: undeclared.
public enum ConsumptionReport {
    public enum Decision: Sendable, Hashable {
        case send(ConsumptionRequest)
        /// No consent recorded, or consent refused: Apple is told nothing.
        case noConsent
        /// The window closed: too late to answer.
        case expired
    }

    public static func decide(_ lease: ConsumptionLease, now: Date) -> Decision {
        guard now < lease.deadline else { return .expired }
        guard lease.consented == true else { return .noConsent }
        return .send(ConsumptionRequest(
            customerConsented: true, consumptionStatus: 0, platform: 1, sampleContentProvided: false,
            deliveryStatus: lease.grantedAt != nil && !lease.revoked ? 0 : 5,
            appAccountToken: lease.appAccountToken,
            accountTenure: tenureBand(since: lease.firstGrantAt, now: now), playTime: 0,
            lifetimeDollarsRefunded: dollarBand(lease.dollarsRefunded), lifetimeDollarsPurchased: dollarBand(lease.dollarsPurchased),
            userStatus: 0))
    }

    /// Apple's accountTenure bands: 1 under 3 days, 2 under 10, 3 under 30, 4 under 90, 5 under
    /// 180, 6 under 365, 7 longer; 0 unknown.
    static func tenureBand(since first: Date?, now: Date) -> Int {
        guard let first else { return 0 }
        let days = now.timeIntervalSince(first) / 86_400
        for (band, limit) in [(1, 3.0), (2, 10), (3, 30), (4, 90), (5, 180), (6, 365)] where days < limit { return band }
        return 7
    }

    /// Apple's lifetime dollar bands: 1 none, 2 under $50, 3 under $100, 4 under $500, 5 under
    /// $1,000, 6 under $2,000, 7 $2,000 or more.
    static func dollarBand(_ dollars: Double) -> Int {
        guard dollars > 0 else { return 1 }
        for (band, limit) in [(2, 50.0), (3, 100), (4, 500), (5, 1000), (6, 2000)] where dollars < limit { return band }
        return 7
    }
}
