import Foundation

/// HTML building for the console: escaping, the page frame, live parts, forms; tables and cells
/// in `ConsoleTable` and `ConsoleCell`. Every value that came from the database or the request is
/// escaped in this type; nothing else writes markup from them.
enum ConsoleHTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    /// `text` as one path component or query value: everything but RFC 3986's unreserved ASCII
    /// escaped (`CharacterSet.alphanumerics` would let non-ASCII letters through raw).
    static func url(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static let navigation: [(String, String)] = [
        ("/console", "Overview"), ("/console/failures", "Failures"), ("/console/workers", "Workers"),
        ("/console/webhooks", "Webhooks"), ("/console/notifications", "Notifications"), ("/console/rate-budget", "Rate budget"),
        ("/console/revenue", "Revenue"),
        ("/console/audit", "Audit log"),
    ]

    /// The frame of every page: a skip link to the main content first (the first Tab reaches it),
    /// then the banner (navigation, search), then `<main>`. `refresh` (a page's own path) marks a
    /// page that refreshes its `live` parts in place (console.js, every 5 s); without JavaScript
    /// its "Refresh" link reloads it.
    static func page(_ title: String, who: SupportCredentials.Operator, flash: String?, refresh: String? = nil, _ body: String) -> String {
        let links = navigation.map { "<a href=\"\($0.0)\">\(escape($0.1))</a>" }.joined(separator: " ")
        let live = refresh.map {
            "<p class=\"refresh\"><a href=\"\(escape($0))\" data-live-every=\"5\">Refresh</a> "
                + "<span class=\"live-status\" data-live-status aria-live=\"polite\"></span></p>"
        } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · receiptq console</title>
            <link rel="stylesheet" href="/console/console.css"><script src="/console/console.js" defer></script></head>
            <body><a class="skip" href="#main">Skip to main content</a>
            <header><strong>receiptq</strong> <nav aria-label="Console">\(links)</nav>
            <form class="search" method="get" action="/console/search" role="search"><input name="q" placeholder="user, transaction, order or job id" aria-label="search by user, transaction, order or job id"><button>Search</button></form>
            <span class="who">\(escape(who.name)) (\(who.role.rawValue))</span></header>
            <main id="main" tabindex="-1"><h1>\(escape(title))</h1>
            \(flash.map { "<p class=\"flash\" role=\"status\">\(escape($0))</p>" } ?? "")
            \(live)
            \(body)
            </main></body></html>
            """
    }

    /// A part of a page that the live refresh replaces with the same part of the page fetched
    /// again (`data-live` names it in both). It must hold figures only, never a form or a field:
    /// the script leaves a part that holds one alone, so what an operator types is never reset.
    static func live(_ name: String, _ html: String) -> String {
        "<div data-live=\"\(escape(name))\">\(html)</div>"
    }

    /// A value as table text: strings as they are, null as empty, arrays and objects as JSON.
    static func text(_ value: Any?) -> String {
        guard let value, !(value is NSNull) else { return "" }
        if let string = value as? String { return string }
        if type(of: value) == Bool.self, let flag = value as? Bool { return flag ? "true" : "false" }
        if let number = value as? NSNumber {
            // On Linux, JSONSerialization hands a JSON boolean back as an NSNumber whose type
            // code is a C char ("c"), and its stringValue is "1"/"0"; JSON numbers are never chars.
            if String(cString: number.objCType) == "c" { return number.boolValue ? "true" : "false" }
            return number.stringValue
        }
        guard JSONSerialization.isValidJSONObject(value), let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
        else { return String(describing: value) }
        return String(decoding: data, as: UTF8.self)
    }

    /// A POST form to `/console/actions/<action>` with the CSRF token, the page to return to, a
    /// required reason, and `fields` (already-escaped markup).
    static func action(_ action: String, csrf: String, back: String, label: String, fields: String = "", why: Bool = true) -> String {
        """
        <form class="action" method="post" action="/console/actions/\(action)">\
        <input type="hidden" name="csrf" value="\(escape(csrf))"><input type="hidden" name="back" value="\(escape(back))">\
        \(fields)\(why ? "<input name=\"why\" required placeholder=\"why (audited)\" aria-label=\"reason (audited)\">" : "")\
        <button name="do" value="\(escape(action))">\(escape(label))</button></form>
        """
    }

    static func hidden(_ name: String, _ value: String) -> String {
        "<input type=\"hidden\" name=\"\(escape(name))\" value=\"\(escape(value))\">"
    }

    static func rows(_ json: String) -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [[String: Any]] ?? []
    }

    static func object(_ json: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
    }
}
