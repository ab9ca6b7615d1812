import CommandSupport
import Testing

@Suite("Malloc arenas: the long-running commands limit glibc themselves")
struct MallocArenasTests {
    @Test func anOperatorsMallocArenaMaxWinsAndNothingIsChanged() {
        #expect(MallocArenas.limit(to: 2, environment: EnvironmentReader(["MALLOC_ARENA_MAX": "4"])) == false)
    }

    @Test func withoutItGlibcTakesTheLimit() {
        #expect(MallocArenas.limit(to: MallocArenas.default, environment: EnvironmentReader([:])))
    }

    @Test func aCountUnderOneIsNotALimit() {
        #expect(MallocArenas.limit(to: 0, environment: EnvironmentReader([:])) == false)
    }
}
