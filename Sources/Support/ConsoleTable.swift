import Foundation

/// The layouts of rows, each under a `ConsoleTables` spec, every cell written by its kind
/// (`cell`) and classed for the stylesheet:
/// - `table`: rows under the spec's labels; a wide one scrolls sideways in its own box rather
///   than squeezing its columns;
/// - `fields`: one record as label/value lines (a job);
/// - `figures`: one row of figures as tiles that wrap (the queue's health), as readable on a
///   phone as at 1280 px;
/// - `transposed`: a few rows side by side, one column each (notifications per environment).
extension ConsoleHTML {
    /// `rows` under `columns` (keys a spec does not name are not shown). `sparse` leaves out the
    /// columns no row fills (a customer's story: most purchases fill few of the ledger's
    /// columns); figures keep every column, so a refresh never reshapes them. `extra` adds a
    /// last cell per row (a form, a checkbox) under the heading `extraLabel`.
    static func table(_ rows: [[String: Any]], _ columns: [ConsoleColumn], id: String? = nil, now: Date, sparse: Bool = false,
                      extraLabel: String = "Action", extra: (([String: Any]) -> String)? = nil) -> String {
        guard !rows.isEmpty else { return "<p class=\"empty\">none</p>" }
        let columns = sparse ? columns.filter { column in rows.contains { !text($0[column.key]).isEmpty } } : columns
        var html = "<div class=\"scroll\"><table\(attribute("id", id))><thead><tr>"
        for column in columns {
            html += "<th scope=\"col\" class=\"\(column.kind.cssClass)\"\(attribute("title", column.help))>\(escape(column.label))</th>"
        }
        if extra != nil { html += "<th scope=\"col\">\(escape(extraLabel))</th>" }
        html += "</tr></thead><tbody>"
        for row in rows {
            html += "<tr>"
            for column in columns {
                html += "<td class=\"\(column.kind.cssClass)\">\(cell(row[column.key], column.kind, now: now))</td>"
            }
            if let extra { html += "<td class=\"k-action\">\(extra(row))</td>" }
            html += "</tr>"
        }
        return html + "</tbody></table></div>"
    }

    /// One record as label/value lines in `columns`' order; a field it does not fill is left out.
    static func fields(_ row: [String: Any], _ columns: [ConsoleColumn], id: String? = nil, now: Date) -> String {
        var html = "<div class=\"scroll\"><table class=\"fields\"\(attribute("id", id))><tbody>"
        for column in columns where !text(row[column.key]).isEmpty {
            html += "<tr><th scope=\"row\"\(attribute("title", column.help))>\(escape(column.label))</th>"
                + "<td class=\"\(column.kind.cssClass)\">\(cell(row[column.key], column.kind, now: now))</td></tr>"
        }
        return html + "</tbody></table></div>"
    }

    /// One row of figures as labelled tiles; an empty figure reads `–`.
    static func figures(_ row: [String: Any]?, _ columns: [ConsoleColumn], id: String? = nil, now: Date) -> String {
        guard let row else { return "<p class=\"empty\">none</p>" }
        var html = "<dl class=\"figures\"\(attribute("id", id))>"
        for column in columns {
            let value = cell(row[column.key], column.kind, now: now)
            html += "<div class=\"figure\"><dt\(attribute("title", column.help))>\(escape(column.label))</dt>"
                + "<dd class=\"\(column.kind.cssClass)\">\(value.isEmpty ? "–" : value)</dd></div>"
        }
        return html + "</dl>"
    }

    /// `rows` side by side: the first column's values head the columns, the others are lines.
    static func transposed(_ rows: [[String: Any]], _ columns: [ConsoleColumn], id: String? = nil, now: Date) -> String {
        guard !rows.isEmpty, let heading = columns.first else { return "<p class=\"empty\">none</p>" }
        var html = "<div class=\"scroll\"><table class=\"transposed\"\(attribute("id", id))><thead><tr><th scope=\"col\">\(escape(heading.label))</th>"
        html += rows.map { "<th scope=\"col\" class=\"\(heading.kind.cssClass)\">\(cell($0[heading.key], heading.kind, now: now))</th>" }.joined()
        html += "</tr></thead><tbody>"
        for column in columns.dropFirst() {
            html += "<tr><th scope=\"row\"\(attribute("title", column.help))>\(escape(column.label))</th>"
            html += rows.map { "<td class=\"\(column.kind.cssClass)\">\(cell($0[column.key], column.kind, now: now))</td>" }.joined()
            html += "</tr>"
        }
        return html + "</tbody></table></div>"
    }

    /// ` name="value"`, escaped, or nothing for nil.
    static func attribute(_ name: String, _ value: String?) -> String {
        value.map { " \(name)=\"\(escape($0))\"" } ?? ""
    }
}
