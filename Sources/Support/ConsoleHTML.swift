import Foundation

/// HTML building for the console: escaping, the page frame, tables of rows, forms. Every value
/// that came from the database or the request is escaped here; nothing else writes markup.
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
        ("/console/audit", "Audit log"),
    ]

    static func page(_ title: String, who: SupportCredentials.Operator, flash: String?, refresh: Bool = false, _ body: String) -> String {
        let links = navigation.map { "<a href=\"\($0.0)\">\(escape($0.1))</a>" }.joined(separator: " ")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(title)) · receiptq console</title>
            \(refresh ? "<meta http-equiv=\"refresh\" content=\"5\">" : "")
            <link rel="stylesheet" href="/console/console.css"><script src="/console/console.js" defer></script></head>
            <body><header><strong>receiptq</strong> \(links)
            <form class="search" method="get" action="/console/search"><input name="q" placeholder="user, transaction, order or job id" aria-label="search"><button>Search</button></form>
            <span class="who">\(escape(who.name)) (\(who.role.rawValue))</span></header>
            <main><h1>\(escape(title))</h1>
            \(flash.map { "<p class=\"flash\" role=\"status\">\(escape($0))</p>" } ?? "")
            \(body)
            </main></body></html>
            """
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

    /// A table of `rows`, columns in `columns` order (default: the first row's keys, sorted).
    /// `link` turns a cell into a link; `extra` adds a last cell (a form) per row.
    static func table(_ rows: [[String: Any]], id: String? = nil, columns: [String]? = nil,
                      link: (String, [String: Any]) -> String? = ConsoleHTML.defaultLink,
                      extra: (([String: Any]) -> String)? = nil) -> String {
        guard let first = rows.first else { return "<p class=\"empty\">none</p>" }
        let columns = columns ?? first.keys.sorted()
        var html = "<table\(id.map { " id=\"\($0)\"" } ?? "")><thead><tr>"
        html += columns.map { "<th>\(escape($0))</th>" }.joined() + (extra == nil ? "" : "<th></th>") + "</tr></thead><tbody>"
        for row in rows {
            html += "<tr>"
            for column in columns {
                let value = text(row[column])
                if let href = link(column, row), !value.isEmpty {
                    html += "<td><a href=\"\(escape(href))\">\(escape(value))</a></td>"
                } else {
                    html += "<td>\(escape(value))</td>"
                }
            }
            if let extra { html += "<td>\(extra(row))</td>" }
            html += "</tr>"
        }
        return html + "</tbody></table>"
    }

    /// Links every table makes: a user to their page, a job to its story, an original transaction to its purchase.
    static func defaultLink(_ column: String, _ row: [String: Any]) -> String? {
        let value = text(row[column])
        switch column {
        case "user_id": return "/console/customers/" + url(value)
        case "original_transaction_id": return "/console/purchases/" + url(value)
        case "job_id" where !value.hasPrefix("-"), "id" where row["kind"] != nil && row["state"] != nil: return "/console/jobs/" + url(value)
        default: return nil
        }
    }

    /// A POST form to `/console/actions/<action>` with the CSRF token, the page to return to, a
    /// required reason, and `fields` (already-escaped markup).
    static func action(_ action: String, csrf: String, back: String, label: String, fields: String = "", why: Bool = true) -> String {
        """
        <form class="action" method="post" action="/console/actions/\(action)">\
        <input type="hidden" name="csrf" value="\(escape(csrf))"><input type="hidden" name="back" value="\(escape(back))">\
        \(fields)\(why ? "<input name=\"why\" required placeholder=\"why (audited)\" aria-label=\"why\">" : "")\
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
