import Foundation

/// One value of a row written as markup by its column's kind (`ConsoleColumn.Kind`): formatted by
/// `ConsoleFormat` and `ConsoleTimestamp`, escaped here. A null is an empty cell; a value that is
/// not what its kind expects (text where a number was meant) is shown as it is, escaped.
extension ConsoleHTML {
    static func cell(_ value: Any?, _ kind: ConsoleColumn.Kind, now: Date) -> String {
        let raw = text(value)
        guard !raw.isEmpty else { return "" }
        switch kind {
        case .text, .prose, .code:
            return escape(raw)
        case .number:
            return escape(ConsoleFormat.double(value).map(ConsoleFormat.number) ?? raw)
        case .percent:
            return escape(ConsoleFormat.double(value).map(ConsoleFormat.percent) ?? raw)
        case .seconds:
            return escape(ConsoleFormat.double(value).map(ConsoleFormat.duration) ?? raw)
        case .time:
            return ConsoleTimestamp.date(value).map { time($0, now: now) } ?? escape(raw)
        case .state:
            return badge(raw)
        case .flag(let yes, let no):
            // A JSON boolean, or Apple's 1/0 (auto-renew status).
            return ["true", "1"].contains(raw) ? badge(yes) : ["false", "0"].contains(raw) ? badge(no) : escape(raw)
        case .link(let link):
            return link.href(raw).map { "<a href=\"\(escape($0))\">\(escape(raw))</a>" } ?? escape(raw)
        case .list:
            return escape((value as? [Any]).map { $0.map { text($0) }.joined(separator: ", ") } ?? raw)
        case .json:
            return json(value, raw: raw)
        }
    }

    /// An object as `key: value` lines (keys sorted, nulls left out, timestamps in exact UTC),
    /// folded under "N fields" past four lines (an audit row's whole grant); anything else as JSON.
    static func json(_ value: Any?, raw: String) -> String {
        guard let object = value as? [String: Any] else { return "<code>\(escape(raw))</code>" }
        let lines = object.keys.sorted().compactMap { key -> String? in
            let plain = text(object[key])
            guard !plain.isEmpty else { return nil }
            let shown = (object[key] as? String).flatMap(ConsoleTimestamp.parse).map(ConsoleTimestamp.exact) ?? plain
            return "<span class=\"json-key\">\(escape(key))</span>: \(escape(shown))"
        }
        let list = "<code>" + lines.joined(separator: "<br>") + "</code>"
        return lines.count > 4 ? "<details><summary>\(lines.count) fields</summary>\(list)</details>" : list
    }

    /// A moment as people read it (`21 s ago`), with the exact UTC time on hover and the machine
    /// form in `datetime` (both made of digits only).
    static func time(_ date: Date, now: Date) -> String {
        "<time datetime=\"\(ConsoleTimestamp.machine(date))\" title=\"\(ConsoleTimestamp.exact(date))\">"
            + escape(ConsoleFormat.relative(date, now: now)) + "</time>"
    }

    /// A state as a badge, `label` (default: the state) in a `badge state-<state>` span; the class
    /// keeps only the state's ASCII letters, digits, `_` and `-`, and the stylesheet colours those it knows.
    static func badge(_ state: String, label: String? = nil) -> String {
        let slug = String(String.UnicodeScalarView(state.lowercased().unicodeScalars.filter {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
        }))
        return "<span class=\"badge state-\(slug)\">\(escape(label ?? state))</span>"
    }
}
