@testable import Worker
import Testing

/// Label values stay bounded and in Prometheus' spelling, whatever a payload says.
@Suite("Metric labels: bounded, snake_case")
struct MetricLabelTests {
    @Test("Apple's notification types pass as they are; anything else counts as OTHER", arguments: [
        ("DID_RENEW", "DID_RENEW"), ("CONSUMPTION_REQUEST", "CONSUMPTION_REQUEST"), ("REFUND", "REFUND"), ("TEST", "TEST"),
        ("", "OTHER"), ("did_renew", "OTHER"), ("REFUND\"}", "OTHER"), ("A B", "OTHER"), (String(repeating: "X", count: 49), "OTHER"),
    ])
    func notificationTypes(type: String, label: String) {
        #expect(WorkerMetrics.boundedNotificationType(type) == label)
    }

    @Test("A breaker's state label is one of closed, half_open, open")
    func breakerStates() {
        #expect(CircuitBreaker<ContinuousClock.Instant>.Phase.allCases.map(\.metricLabel) == ["closed", "half_open", "open"])
    }
}
