/// Where an id leads in the console: a user to their customer page, an original transaction to
/// its purchase, a job to its story, an audit subject (`user:…`, `job:…`,
/// `original_transaction:…`) to the page of what it names.
enum ConsoleLink: Sendable, Equatable {
    case customer, purchase, job, subject

    /// The page of `value`, or nil when it has none (an empty value, a manual grant's job id — a
    /// negative number, no job — or a subject such as `fleet` or `endpoint:…`).
    func href(_ value: String) -> String? {
        guard !value.isEmpty else { return nil }
        switch self {
        case .customer: return "/console/customers/" + ConsoleHTML.url(value)
        case .purchase: return "/console/purchases/" + ConsoleHTML.url(value)
        case .job: return value.hasPrefix("-") ? nil : "/console/jobs/" + ConsoleHTML.url(value)
        case .subject:
            guard let colon = value.firstIndex(of: ":") else { return nil }
            let named = String(value[value.index(after: colon)...])
            switch value[..<colon] {
            case "user": return Self.customer.href(named)
            case "job": return Self.job.href(named)
            case "original_transaction": return Self.purchase.href(named)
            default: return nil
            }
        }
    }
}
