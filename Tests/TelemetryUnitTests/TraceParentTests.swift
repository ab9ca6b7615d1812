import Telemetry
import Testing

/// W3C Trace Context's `traceparent`, as the API reads it from callers and rows carry it.
@Suite struct TraceParentTests {
    @Test func aVersion00HeaderRoundTrips() throws {
        let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let parent = try #require(TraceParent(header))
        #expect(parent.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(parent.spanID == "00f067aa0ba902b7")
        #expect(parent.sampled)
        #expect(parent.description == header)
    }

    @Test func theSampledFlagIsBitZero() throws {
        #expect(try #require(TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")).sampled == false)
        #expect(try #require(TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03")).sampled)
    }

    @Test func aLaterVersionIsReadByItsFirstFourFields() throws {
        let parent = try #require(TraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra"))
        #expect(parent.description == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    }

    @Test(arguments: [
        "",
        "garbage",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",              // no flags
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",     // version 00 has four fields
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",           // version ff is invalid
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",           // all-zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",           // all-zero span id
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",           // uppercase
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",            // short trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01",            // short span id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",           // not hex
    ])
    func anythingElseIsIgnored(_ header: String) {
        #expect(TraceParent(header) == nil)
    }

    @Test func newIdsAreLowercaseHexOfTheRightLengthAndDiffer() {
        let traces = (0..<100).map { _ in TraceParent.newTraceID() }
        let spans = (0..<100).map { _ in TraceParent.newSpanID() }
        #expect(Set(traces).count == 100 && Set(spans).count == 100)
        #expect(traces.allSatisfy { $0.count == 32 && TraceParent("00-\($0)-00f067aa0ba902b7-01") != nil })
        #expect(spans.allSatisfy { $0.count == 16 && TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-\($0)-01") != nil })
    }
}
