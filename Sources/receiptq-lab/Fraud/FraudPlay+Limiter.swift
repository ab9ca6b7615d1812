import HTTPClient

/// Limiter lockout: behind an ingress every backend shares one peer address. Someone there fails
/// authentication until the limiter answers 429; the valid tokens from that same address must
/// still pass, untouched by what others did.
extension FraudPlay {
    func limiterLockout(http: HTTPClient, attempts: Int = 40) async {
        var limited = 0
        for index in 0..<attempts {
            let guesser = FraudBackend(apiURL: backend.apiURL, token: "wrong-token-\(round)-\(index)", http: http)
            let status = await guesser.status(1).status
            if status == 429 { limited += 1 }
            attacked("a guesser", "a bad token", FraudAnswer(status: status), allowed: ["http 401", "http 429"])
        }
        check("bad tokens from one address are limited (429)", limited > 0, "\(limited) of \(attempts) answered 429")
        for (name, client) in [("backend token", backend), ("trusted backend token", trusted)] {
            let read = await client.status(1)
            payer(name, "reads a job from the locked-out address", FraudAnswer(status: read.status), allowed: ["http 200"])
        }
    }
}
