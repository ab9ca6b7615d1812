/// One column of a console table: the key of the row it reads, the label a person reads, and
/// what kind of value it holds — which decides how the value is written (`ConsoleHTML.cell`)
/// and laid out (its `k-…` class: figures right-aligned, ids and times never wrapped).
struct ConsoleColumn: Sendable {
    enum Kind: Sendable, Equatable {
        /// Words: wrapped at spaces only.
        case text
        /// Reasons, errors, URLs: wrapped, even inside a long token, in a column of bounded width.
        case prose
        /// A count or amount: `12,345`.
        case number
        /// A fraction 0…1: `1.5%`, `13%`.
        case percent
        /// An interval in seconds: `21 s`, `3 min`.
        case seconds
        /// A moment: `21 s ago` in a `<time>` with the exact UTC time as its title.
        case time
        /// A state (`queued`, `failed`, `applied`…) as a badge.
        case state
        /// A boolean as a badge reading `yes` or `no` (`live`/`silent`, `enabled`/`disabled`).
        case flag(yes: String, no: String)
        /// An id or a code (Apple's status 21002): as it is, never wrapped, never grouped.
        case code
        /// An id linking to its page.
        case link(ConsoleLink)
        /// A JSON array of words: `a, b`.
        case list
        /// A JSON object, compact.
        case json

        /// The class of its cells (`k-number`…), for the stylesheet.
        var cssClass: String {
            switch self {
            case .text: "k-text"
            case .prose: "k-prose"
            case .number, .percent, .seconds: "k-number"
            case .time: "k-time"
            case .state, .flag: "k-state"
            case .code, .link: "k-id"
            case .list: "k-text"
            case .json: "k-json"
            }
        }
    }

    let key: String
    let label: String
    let kind: Kind
    /// What the label does not say, shown on hover over the heading.
    let help: String?

    init(_ key: String, _ label: String, _ kind: Kind = .text, help: String? = nil) {
        self.key = key
        self.label = label
        self.kind = kind
        self.help = help
    }
}
