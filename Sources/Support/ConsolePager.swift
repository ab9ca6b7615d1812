import Foundation

/// The "Newer" / "Older" links under a paged list (`ConsolePaging`), and the page size. Each link
/// keeps the page's filters (`keep`) and carries the sort key (`page_key`, made by the list's
/// query) of the first or last row shown. The last page has no "Older", the newest no "Newer".
extension ConsoleHTML {
    static func pager(_ paging: ConsolePaging, rows: [[String: Any]], older: Bool, newer: Bool,
                      path: String, keep: [(String, String)], id: String) -> String {
        let kept = keep.filter { !$0.1.isEmpty && !$0.0.hasPrefix(paging.prefix + "before") && !$0.0.hasPrefix(paging.prefix + "after") }
        func href(_ extra: [(String, String)]) -> String {
            let query = (kept.filter { $0.0 != paging.prefix + "size" } + (paging.size == ConsolePaging.defaultSize ? [] : [(paging.prefix + "size", String(paging.size))])
                         + extra).map { url($0.0) + "=" + url($0.1) }.joined(separator: "&")
            return path + (query.isEmpty ? "" : "?" + query)
        }
        var links: [String] = []
        if rows.isEmpty, paging.cursor != nil {
            links.append("<a href=\"\(escape(href([])))\" rel=\"first\">Newest</a>")
        }
        if newer, let first = rows.first.map({ text($0["page_key"]) }), !first.isEmpty {
            links.append("<a href=\"\(escape(href([(paging.prefix + "after", first)])))\" rel=\"prev\">← Newer</a>")
        }
        if older, let last = rows.last.map({ text($0["page_key"]) }), !last.isEmpty {
            links.append("<a href=\"\(escape(href([(paging.prefix + "before", last)])))\" rel=\"next\">Older →</a>")
        }
        let sizes = [50, 100, 200].map { size -> String in
            guard size != paging.size else { return "<strong>\(size)</strong>" }
            let query = (kept.filter { $0.0 != paging.prefix + "size" } + [(paging.prefix + "size", String(size))])
                .map { url($0.0) + "=" + url($0.1) }.joined(separator: "&")
            return "<a href=\"\(escape(path + "?" + query))\">\(size)</a>"
        }.joined(separator: " ")
        let count = "\(ConsoleFormat.grouped(Int64(rows.count))) shown"
        return "<nav class=\"pager\" id=\"\(escape(id))\" aria-label=\"pages of \(escape(id))\"><span>\(count)</span> "
            + links.joined(separator: " ") + " <span class=\"sizes\">per page: \(sizes)</span></nav>"
    }
}
