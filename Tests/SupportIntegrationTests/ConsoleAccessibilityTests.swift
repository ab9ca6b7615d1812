import Foundation
@testable import Support
import Testing

/// What the page frame and the action forms keep for assistive technology and keyboards; axe-core
/// checks the rendered pages in the browser journeys (docs/console.md, "Accessibility").
@Suite("Console accessibility: skip link, landmarks, named fields, visible focus")
struct ConsoleAccessibilityTests {
    static let admin = SupportCredentials.Operator(name: "alice", role: .admin)

    @Test func theFirstThingTabReachesIsTheSkipLinkToTheMainContent() throws {
        let html = ConsoleHTML.page("Failures", who: Self.admin, flash: nil, "<p>body</p>")
        #expect(html.contains("<html lang=\"en\">"))
        let skip = try #require(html.range(of: "<a class=\"skip\" href=\"#main\">Skip to main content</a>"))
        for focusable in ["<a ", "<input", "<button", "<select"] {
            guard let first = html.range(of: focusable) else { continue }
            #expect(first.lowerBound >= skip.lowerBound, "\(focusable) comes before the skip link")
        }
        #expect(html.contains("<main id=\"main\" tabindex=\"-1\">"))
        #expect(html.contains("<nav aria-label=\"Console\">"))
        #expect(html.contains("role=\"search\""))
    }

    @Test func everyFieldAnOperatorTypesInHasAName() {
        let html = ConsoleHTML.page("Purchase", who: Self.admin, flash: nil,
                                    ConsoleHTML.action("extend", csrf: "t", back: "/console", label: "Extend renewal (days)"))
        let fields = html.components(separatedBy: "<input").dropFirst().map { String($0.prefix { $0 != ">" }) }
            .filter { !$0.contains("type=\"hidden\"") }
        #expect(fields.count == 2)   // the search box and the reason
        for field in fields {
            #expect(field.contains("aria-label=\""), "a field without a name: <input\(field)>")
        }
    }

    @Test func focusIsOutlinedAndMutedTextKeepsItsContrast() {
        #expect(ConsoleAssets.css.contains(":focus-visible{outline:3px solid"))
        #expect(ConsoleAssets.css.contains(".skip:focus{"))
        #expect(!ConsoleAssets.css.contains("#767676}"), "muted text at #767676 on #fafafa is under 4.5:1")
    }
}
