import Foundation

/// What `bench reconcile` measured: one round of status checks over a seeded population, and the
/// schedule those checks wrote.
struct BenchReconcileOutcome {
    struct State {
        let state: String
        let subscriptions: Int
        /// Checks a day the schedule written implies for these subscriptions, summed.
        let checksPerDay: Double
    }

    let customers: Int
    let subscriptions: Int
    /// Get All Subscription Statuses requests the fake answered.
    let requests: Int
    let seconds: Double
    let postgresSeconds: Double
    let rate: Double
    let states: [State]
    /// Requests a day the schedule implies with one answer per customer (a customer costs its most
    /// frequent subscription's rate).
    let requestsPerDay: Double

    var checksPerDay: Double { states.reduce(0) { $0 + $1.checksPerDay } }
    /// Subscribers one endpoint's budget carries a day at the measured cost per subscriber.
    var subscribersPerBudget: Double { rate * 86_400 / max(requestsPerDay / Double(subscriptions), 1e-9) }

    private func format(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }

    var text: String {
        var lines = [
            "bench reconcile: \(customers) customers, \(subscriptions) subscriptions, all due; budget \(format(rate, 0))/s of Get All Subscription Statuses",
            "  round:            \(subscriptions) checked in \(format(seconds, 1)) s = \(format(Double(subscriptions) / seconds, 1)) checks/s",
            "  Apple requests:   \(requests) = \(format(Double(requests) / Double(subscriptions))) per subscription checked "
                + "(one answer holds every subscription of its customer)",
            "  PostgreSQL CPU:   \(format(postgresSeconds, 2)) s = \(format(postgresSeconds * 1000 / Double(subscriptions), 2)) s per 1,000 checks",
            "  the schedule the checks wrote, by state (checks per subscription per day):",
        ]
        for state in states {
            lines.append("    \(state.state.padding(toLength: 14, withPad: " ", startingAt: 0)) \(String(state.subscriptions).padding(toLength: 7, withPad: " ", startingAt: 0)) "
                + format(state.checksPerDay / Double(max(state.subscriptions, 1))))
        }
        lines += [
            "  per subscriber:   \(format(checksPerDay / Double(subscriptions))) checks a day; "
                + "\(format(requestsPerDay / Double(subscriptions))) Apple requests a day with one answer per customer",
            "  one budget:       \(format(rate, 0))/s carries \(format(subscribersPerBudget / 1e6, 1)) million such subscribers; "
                + "Get Transaction Info's budget (verifications) is not spent",
        ]
        return lines.joined(separator: "\n")
    }

    var json: String {
        let object: [String: Any] = [
            "customers": customers, "subscriptions": subscriptions, "requests": requests, "seconds": seconds,
            "checks_per_second": Double(subscriptions) / seconds, "requests_per_check": Double(requests) / Double(subscriptions),
            "postgres_cpu_seconds": postgresSeconds, "rate": rate,
            "checks_per_subscriber_per_day": checksPerDay / Double(subscriptions),
            "requests_per_subscriber_per_day": requestsPerDay / Double(subscriptions), "subscribers_per_budget": subscribersPerBudget,
            "states": Dictionary(uniqueKeysWithValues: states.map { ($0.state, ["subscriptions": $0.subscriptions,
                                                                              "checks_per_day": $0.checksPerDay / Double(max($0.subscriptions, 1))]) }),
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
