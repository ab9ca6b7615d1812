import CommandSupport
import Foundation
import HTTPClient

/// The well-behaved part of the traffic: `rate` purchases per second through POST /v1/receipts,
/// each retried like a careful backend would (same body, after 0.5–1 s) on 503, 429 or no answer
/// until it is accepted or `giveUpAt` passes.
struct ChaosLoad: Sendable {
    let apiURL: String
    let token: String
    let rate: Double
    let http: HTTPClient
    let ledger: ChaosLedger

    /// Submits purchases from `start` until `stop`, returns when every one is accepted or abandoned.
    func run(start: ContinuousClock.Instant, stop: ContinuousClock.Instant, giveUpAt: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            var number = 0
            while true {
                let due = start + .milliseconds(Int64(Double(number) * 1_000 / rate))
                guard due < stop else { break }
                try? await Task.sleep(until: due)
                let purchase = ChaosPurchase(number: number)
                group.addTask { await submit(purchase, giveUpAt: giveUpAt) }
                number += 1
            }
        }
    }

    private func submit(_ purchase: ChaosPurchase, giveUpAt: ContinuousClock.Instant) async {
        ledger.submitted()
        let first = ContinuousClock.now
        let headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        while ContinuousClock.now < giveUpAt {
            var status = 0
            if let answer = try? await http.post(url: apiURL + "/v1/receipts", headers: headers, body: purchase.body, timeout: .seconds(10)) {
                status = answer.status
                if status == 200 || status == 202, let id = Self.jobID(answer.body) {
                    ledger.answered(status: status)
                    ledger.accepted(purchase, job: id, after: (ContinuousClock.now - first).seconds)
                    return
                }
            }
            ledger.answered(status: status)
            if (400..<500).contains(status) && status != 429 {
                ledger.refused(purchase, status: status)
                return
            }
            try? await Task.sleep(for: .milliseconds(Int64.random(in: 500...1_000)))
        }
        ledger.abandoned(purchase)
    }

    static func jobID(_ body: [UInt8]) -> Int64? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return (object["id"] as? NSNumber)?.int64Value
    }
}
