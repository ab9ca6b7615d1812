import Foundation
import Hummingbird

/// `/console/revenue`: the ledger's revenue figures (`ConsoleRevenue`), with what they are and are not.
extension ConsolePages {
    func revenue(_ who: SupportCredentials.Operator, request: Request) async throws -> String {
        let now = Date()
        let environment = try Self.choice(request, "environment", ConsoleRevenue.environments) ?? "Production"
        let r = ConsoleRevenue.self
        let states = try await rows(r.states, [environment]).first
        let mrr = try await rows(r.mrr, [environment])
        let days = try await rows(r.days, [environment])
        let trials = try await rows(r.trials, [environment]).first
        let unknown = mrr.filter { H.text($0["currency"]) == "price unknown" }.reduce(0) { $0 + ConsoleCharts.int($1["subscriptions"]) }
        var body = "<form class=\"filter\" method=\"get\" action=\"/console/revenue\"><select name=\"environment\" aria-label=\"environment\">"
            + r.environments.map { "<option\($0 == environment ? " selected" : "")>\($0)</option>" }.joined()
            + "</select><button>Show</button></form>"
        body += r.caveats
        body += "<h2>Subscriptions (\(H.escape(environment)))</h2>" + H.figures(states, r.stateColumns, id: "revenue-states", now: now)
        body += "<h2>MRR by product and currency</h2>"
            + "<p class=\"order\">\(unknown == 0 ? "Every active subscription has a known price." : "\(unknown) active subscription(s) with price unknown, not in any MRR.")</p>"
            + H.table(mrr, r.mrrColumns, id: "revenue-mrr", now: now)
        let chart = ConsoleChart(id: "revenue-days", title: "Subscriptions per day, the last 30 days (UTC)",
                                 description: "New, renewed, churned and refunded per day",
                                 labels: days.map { String(H.text($0["day"]).suffix(5)) },   // MM-DD: the year is in the table below
                                 series: ConsoleCharts.series(days, [("new", "new"), ("renewed", "renewed"), ("churned", "churned"), ("refunded", "refunded")]))
        body += "<h2>New, renewed, churned and refunded per day</h2><div class=\"charts\">" + chart.html + "</div>"
            + H.table(days.reversed(), r.dayColumns, id: "revenue-days", now: now)
        body += "<h2>Trials</h2>" + H.figures(trials, r.trialColumns, id: "revenue-trials", now: now)
        return H.page("Revenue", who: who, flash: nil, body)
    }
}
