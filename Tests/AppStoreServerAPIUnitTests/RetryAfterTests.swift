import AppStoreServerAPI
import Foundation
import Testing

@Suite("Retry-After: Apple's UNIX milliseconds, HTTP's seconds, nothing else")
struct RetryAfterTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func applesUnixMillisecondsAreAnInstant() {
        #expect(RetryAfter.parse("1700000005000", now: now) == Date(timeIntervalSince1970: 1_700_000_005))
    }

    @Test func smallNumbersAreSecondsFromNow() {
        #expect(RetryAfter.parse("30", now: now) == now.addingTimeInterval(30))
        #expect(RetryAfter.parse(" 0 ", now: now) == now)
    }

    @Test(arguments: [nil, "", "soon", "-5", "1.5", "Wed, 21 Oct 2015 07:28:00 GMT"])
    func anythingElseIsUnknown(value: String?) {
        #expect(RetryAfter.parse(value, now: now) == nil)
    }
}
