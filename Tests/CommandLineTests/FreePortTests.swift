import Foundation
import ReceiptQueueTesting
import Testing

/// The lab picks ports for its children before it opens thousands of outgoing connections; a port
/// from the ephemeral range could be taken as the source port of one of them before the child
/// binds it ("Address already in use"); and one of `Deploy/dev`'s PostgreSQL ports would move
/// the dev cluster when it next starts.
@Suite struct FreePortTests {
    @Test func aPickedPortLiesBelowTheKernelsEphemeralRange() throws {
        let text = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let firstEphemeral = try #require(text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) })
        try #require(firstEphemeral > 10001, "this machine's ephemeral range leaves no room below it")
        for _ in 0..<50 {
            let port = try FreePort.pick()
            #expect(port >= 10000 && port < firstEphemeral)
            #expect(port < 25432, "Deploy/dev's PostgreSQL ports start at 25432")
        }
    }
}
