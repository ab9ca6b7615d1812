@testable import API
import Testing

@Suite("Long-polls: capped per token and in all")
struct LongPollBudgetTests {
    @Test("a token gets at most its share, others go on until the total is reached")
    func capsPerTokenAndInAll() {
        let budget = LongPollBudget(perToken: 2, total: 3)
        #expect(budget.enter(token: 1) && budget.enter(token: 1))
        #expect(!budget.enter(token: 1))
        #expect(budget.enter(token: 2))
        #expect(!budget.enter(token: 3))
        #expect(budget.waiting == 3)
        budget.leave(token: 1)
        #expect(budget.enter(token: 3))
        #expect(!budget.enter(token: 2))
    }

    @Test("places come back when long-polls end")
    func placesComeBack() {
        let budget = LongPollBudget(perToken: 1, total: 10)
        #expect(budget.enter(token: 7))
        #expect(!budget.enter(token: 7))
        budget.leave(token: 7)
        #expect(budget.enter(token: 7))
        #expect(budget.waiting == 1)
    }
}
