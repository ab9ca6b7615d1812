import Foundation
import ReceiptQueue

/// Keyset paging for the console's lists: a page is the rows just before (`before`, older) or
/// just after (`after`, newer) a cursor — the sort key of a row already shown, its time and its
/// id — never an OFFSET. A row inserted between two page loads therefore moves nothing already
/// seen: it lands above the cursor, on a newer page. `size` rows a page (default 50, at most
/// 200). Every parameter is checked before a query runs: a bad one is a 400 naming it
/// (`SupportError.invalid`), never a 500. One page may hold several lists, told apart by
/// `prefix` (`jobs_before`, `grants_before` on a customer's page).
struct ConsolePaging: Sendable {
    /// What one part of a cursor holds, and how SQL reads it back.
    enum Part: Sendable {
        /// A timestamp as whole microseconds since 1970: exact, where a float would round.
        case micros
        /// A bigint id.
        case number
        /// A UUID.
        case uuid
        /// Text (an endpoint id, a purchase key): the last part only, it may hold `_`.
        case text

        static let microsBound: Int64 = 10_000_000_000_000_000

        func sql(_ parameter: Int) -> String {
            switch self {
            case .micros: "('epoch'::timestamptz + $\(parameter)::bigint * interval '1 microsecond')"
            case .number: "$\(parameter)::bigint"
            case .uuid: "$\(parameter)::uuid"
            case .text: "$\(parameter)::text"
            }
        }

        func valid(_ value: String) -> Bool {
            switch self {
            case .micros: Int64(value).map { (-Self.microsBound...Self.microsBound).contains($0) } ?? false   // within ±316 years of 1970
            case .number: Int64(value) != nil
            case .uuid: UUID(uuidString: value) != nil
            case .text: (1...300).contains(value.count)
            }
        }
    }

    enum Direction: Sendable { case older, newer }

    static let defaultSize = 50
    static let maxSize = 200

    let prefix: String
    let size: Int
    let direction: Direction
    /// The cursor's parts, checked against the list's shape; nil on the first (newest) page.
    let cursor: [String]?

    /// Reads `<prefix>before`, `<prefix>after` and `<prefix>size` from `query`.
    init(_ query: (String) -> String?, prefix: String = "", shape: [Part]) throws(SupportError) {
        self.prefix = prefix
        let sizeName = prefix + "size"
        if let text = query(sizeName), !text.isEmpty {
            guard let size = Int(text), (1...Self.maxSize).contains(size) else {
                throw SupportError(.invalid, "\(sizeName) must be a whole number from 1 to \(Self.maxSize), not \"\(text.prefix(40))\"")
            }
            self.size = size
        } else {
            size = Self.defaultSize
        }
        let before = query(prefix + "before").flatMap { $0.isEmpty ? nil : $0 }
        let after = query(prefix + "after").flatMap { $0.isEmpty ? nil : $0 }
        guard before == nil || after == nil else { throw SupportError(.invalid, "give \(prefix)before or \(prefix)after, not both") }
        direction = after == nil ? .older : .newer
        guard let text = before ?? after else {
            cursor = nil
            return
        }
        let name = prefix + (after == nil ? "before" : "after")
        let parts = text.split(separator: "_", maxSplits: shape.count - 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == shape.count, zip(shape, parts).allSatisfy({ $0.valid($1) }) else {
            throw SupportError(.invalid, "\(name) is not a cursor of this list (\"\(text.prefix(60))\"): follow the Newer and Older links")
        }
        cursor = parts
    }

    /// The SQL after a list's filters, for `keys` (its sort key, most significant first, unique
    /// together, newest first) with the cursor's values from `$<first>` on: the condition (the
    /// first key alone first, so a range of the list's index bounds the scan), the order, the
    /// limit — one row more than the page, to know whether another page follows.
    func clause(_ keys: [String], shape: [Part], first: Int) -> (condition: String, order: String, limit: Int, parameters: [String]) {
        let order = keys.map { $0 + (direction == .older ? " DESC" : " ASC") }.joined(separator: ", ")
        guard let cursor else { return ("TRUE", order, size + 1, []) }
        let values = shape.enumerated().map { $1.sql(first + $0) }
        let op = direction == .older ? "<" : ">"
        let condition = "\(keys[0]) \(op)= \(values[0]) AND (\(keys.joined(separator: ", "))) \(op) (\(values.joined(separator: ", ")))"
        return (condition, order, size + 1, cursor)
    }

    /// The rows of this page, newest first, and whether older and newer pages exist — from the
    /// rows a query answered under `clause` (up to `size + 1`, in the clause's order).
    func page(_ fetched: [[String: Any]]) -> (rows: [[String: Any]], older: Bool, newer: Bool) {
        let more = fetched.count > size
        let shown = Array(fetched.prefix(size))
        switch direction {
        case .older: return (shown, more, cursor != nil)
        case .newer: return (shown.reversed(), cursor != nil, more)
        }
    }
}
