import ReceiptQueue
import Testing

/// A 202 means "committed": the settings under which that holds, and what the API says at start
/// when it does not.
@Suite("Commit durability: when a 202 survives a crash")
struct CommitDurabilityTests {
    @Test(arguments: [("on", "on", 0), ("local", "on", 0), ("remote_apply", "on", 0), ("remote_write", "on", 0), ("off", "on", 1),
                      ("on", "off", 1), ("off", "off", 2)])
    func problems(_ synchronousCommit: String, _ fsync: String, _ count: Int) {
        let durability = CommitDurability(synchronousCommit: synchronousCommit, fsync: fsync)
        #expect(durability.problems.count == count, "\(durability.problems)")
        if synchronousCommit == "off" { #expect(durability.problems.first?.contains("synchronous_commit is off") == true) }
    }
}
