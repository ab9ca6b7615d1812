import Foundation

/// A chart of figures per interval, drawn server-side as inline SVG (no script, no style attribute:
/// the pages' CSP allows neither, and needs neither). Pure: series in, markup out. Counts are
/// stacked bars; levels (a latency's percentiles) are lines, one point an interval, broken where an
/// interval has no value. One colour per series (`chart-s0`…, in `ConsoleAssets`); the scale's top
/// is a "nice" number (1, 2 or 5 × 10ⁿ) at or above the highest stack or point, with ticks at its
/// quarters. Every chart has a title and a description for assistive technology, and its numbers
/// as a table behind a `<details>`; no data at all is said in words, never drawn as an empty frame.
struct ConsoleChart: Sendable, Equatable {
    struct Series: Sendable, Equatable {
        let name: String
        /// One per interval; `nil`: nothing to show there (a line's gap, "–" in the table).
        let values: [Int?]
        /// Its colour (`chart-s<tone>`: 0 green, 1 amber, 2 red, 3 purple, 4 blue, 5 grey); nil: by
        /// its place. A figure that is bad news (failed, open) is red wherever it stands.
        let tone: Int?

        init(name: String, values: [Int?], tone: Int? = nil) {
            self.name = name
            self.values = values
            self.tone = tone
        }

        init(name: String, values: [Int], tone: Int? = nil) {
            self.init(name: name, values: values.map(Optional.some), tone: tone)
        }

        func value(_ i: Int) -> Int? { values.indices.contains(i) ? values[i] : nil }
    }

    enum Style: Sendable, Equatable {
        /// Counts that add up: bars, each series on the one before; the table has a total.
        case stackedBars
        /// Levels that do not add up (p50 and p99): lines; the table has no total.
        case lines
    }

    /// The chart's id (`chart-<id>`, its table `chart-<id>-table`), title and what it shows.
    let id: String
    let title: String
    let description: String
    /// One label per interval ("20:15"), oldest first.
    let labels: [String]
    let series: [Series]
    let style: Style
    /// What a line chart's values are in ("ms"), said after each value.
    let unit: String

    init(id: String, title: String, description: String, labels: [String], series: [Series], style: Style = .stackedBars, unit: String = "") {
        self.id = id
        self.title = title
        self.description = description
        self.labels = labels
        self.series = series
        self.style = style
        self.unit = unit
    }

    /// The colour class of the series at `index`.
    func tone(_ index: Int) -> Int { (series[index].tone ?? index) % 6 }

    /// Each interval's stack: the sum of every series at that interval.
    var totals: [Int] {
        labels.indices.map { i in series.reduce(0) { $0 + max(0, $1.value(i) ?? 0) } }
    }

    /// The highest the scale must reach: the highest stack, or the highest point of a line.
    var highest: Int {
        style == .stackedBars ? totals.max() ?? 0 : series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0
    }

    var isEmpty: Bool {
        style == .stackedBars ? totals.allSatisfy { $0 == 0 } : series.allSatisfy { $0.values.allSatisfy { $0 == nil } }
    }

    /// The smallest 1, 2 or 5 × 10ⁿ at or above `value` (at least 1).
    static func niceTop(_ value: Int) -> Int {
        guard value > 1 else { return 1 }
        var scale = 1
        while true {
            for step in [1, 2, 5] where step * scale >= value { return step * scale }
            scale *= 10
        }
    }

    /// The values marked on the y axis: 0 and the top's quarters (halves when a quarter is not whole).
    static func ticks(top: Int) -> [Int] {
        if top % 4 == 0 { return (0...4).map { top / 4 * $0 } }
        if top % 2 == 0 { return [0, top / 2, top] }
        return [0, top]
    }

    static let width = 640, height = 200, left = 44, right = 8, topMargin = 10, bottom = 26

    /// The whole figure: heading, SVG (or "no data"), legend and the numbers' table.
    var html: String {
        let h = ConsoleHTML.self
        let svgID = "chart-" + id
        var out = "<figure class=\"chart\" id=\"\(h.escape(svgID))\"><figcaption>\(h.escape(title))</figcaption>"
        if isEmpty {
            out += "<p class=\"chart-empty\">No data: nothing happened in this window (\(labels.count) intervals, every one 0).</p>"
        } else {
            out += svg + legend
        }
        out += table + "</figure>"
        return out
    }

    var legend: String {
        "<ul class=\"chart-legend\">" + series.enumerated().map { index, s in
            "<li><span class=\"chart-key chart-s\(tone(index))\" aria-hidden=\"true\"></span>\(ConsoleHTML.escape(s.name))</li>"
        }.joined() + "</ul>"
    }

    var svg: String {
        let h = ConsoleHTML.self
        let top = Self.niceTop(highest)
        let plotW = Self.width - Self.left - Self.right, plotH = Self.height - Self.topMargin - Self.bottom
        let n = max(labels.count, 1)
        let slot = Double(plotW) / Double(n)
        let barW = max(1.0, slot * 0.8)
        func y(_ value: Int) -> Double { Double(Self.topMargin) + Double(plotH) * (1 - Double(value) / Double(top)) }
        func f(_ x: Double) -> String { String(format: "%.1f", x) }
        let titleID = "chart-\(id)-title", descID = "chart-\(id)-desc"
        var out = "<svg class=\"chart-svg\" viewBox=\"0 0 \(Self.width) \(Self.height)\" role=\"img\" aria-labelledby=\"\(h.escape(titleID)) \(h.escape(descID))\">"
        let summary = style == .stackedBars ? "highest \(highest), total \(totals.reduce(0, +)) over \(labels.count) intervals"
            : "highest \(highest)\(unit.isEmpty ? "" : " " + unit) over \(labels.count) intervals"
        out += "<title id=\"\(h.escape(titleID))\">\(h.escape(title))</title><desc id=\"\(h.escape(descID))\">\(h.escape(description)); "
            + h.escape(summary) + "</desc>"
        for tick in Self.ticks(top: top) {
            let ty = f(y(tick))
            out += "<line class=\"chart-grid\" x1=\"\(Self.left)\" x2=\"\(Self.width - Self.right)\" y1=\"\(ty)\" y2=\"\(ty)\"/>"
                + "<text class=\"chart-tick\" x=\"\(Self.left - 4)\" y=\"\(ty)\" text-anchor=\"end\" dominant-baseline=\"middle\">\(tick)</text>"
        }
        if style == .lines {
            out += lines(x: { Double(Self.left) + slot * (Double($0) + 0.5) }, y: { y($0) }, f: f)
        } else {
            out += bars(slot: slot, barW: barW, y: { y($0) }, f: f)
        }
        // About six labels along the x axis, the last interval always among them.
        let every = max(1, Int((Double(n) / 6).rounded(.up)))
        for i in labels.indices where (labels.count - 1 - i) % every == 0 {
            // The last label ends at the plot's right edge, so it is never cut off.
            let last = i == labels.count - 1
            let x = last ? Double(Self.width - Self.right) : Double(Self.left) + slot * (Double(i) + 0.5)
            out += "<text class=\"chart-tick\" x=\"\(f(x))\" y=\"\(Self.height - 8)\" text-anchor=\"\(last ? "end" : "middle")\">\(h.escape(labels[i]))</text>"
        }
        out += "<line class=\"chart-axis\" x1=\"\(Self.left)\" x2=\"\(Self.width - Self.right)\" y1=\"\(f(y(0)))\" y2=\"\(f(y(0)))\"/></svg>"
        return out
    }

    /// Stacked bars, one stack an interval; each rect carries its series and value.
    func bars(slot: Double, barW: Double, y: (Int) -> Double, f: (Double) -> String) -> String {
        let h = ConsoleHTML.self
        var out = ""
        for i in labels.indices {
            var base = 0
            let x = Double(Self.left) + slot * Double(i) + (slot - barW) / 2
            for (index, s) in series.enumerated() {
                let value = max(0, s.value(i) ?? 0)
                guard value > 0 else { continue }
                let y1 = y(base + value), y0 = y(base)
                out += "<rect class=\"chart-s\(tone(index))\" x=\"\(f(x))\" y=\"\(f(y1))\" width=\"\(f(barW))\" height=\"\(f(y0 - y1))\" "
                    + "data-series=\"\(h.escape(s.name))\" data-value=\"\(value)\"><title>\(h.escape(labels[i])): \(value) \(h.escape(s.name))</title></rect>"
                base += value
            }
        }
        return out
    }

    /// One line a series through its intervals' values, broken where there is none; each value is
    /// also a point that carries its series and value (a lone value between gaps stays visible).
    func lines(x: (Int) -> Double, y: (Int) -> Double, f: (Double) -> String) -> String {
        let h = ConsoleHTML.self
        var out = ""
        for (index, s) in series.enumerated() {
            var run: [String] = []
            func flush() {
                if run.count > 1 { out += "<polyline class=\"chart-line chart-s\(tone(index))\" points=\"\(run.joined(separator: " "))\"/>" }
                run.removeAll()
            }
            for i in labels.indices {
                guard let value = s.value(i) else { flush(); continue }
                run.append("\(f(x(i))),\(f(y(value)))")
            }
            flush()
            for i in labels.indices {
                guard let value = s.value(i) else { continue }
                out += "<circle class=\"chart-point chart-s\(tone(index))\" cx=\"\(f(x(i)))\" cy=\"\(f(y(value)))\" r=\"2\" "
                    + "data-series=\"\(h.escape(s.name))\" data-value=\"\(value)\"><title>\(h.escape(labels[i])): \(value)\(unit.isEmpty ? "" : " " + h.escape(unit)) \(h.escape(s.name))</title></circle>"
            }
        }
        return out
    }

    /// The numbers drawn, one row an interval, for screen readers and for checking by eye.
    var table: String {
        let h = ConsoleHTML.self
        var out = "<details class=\"chart-numbers\" id=\"chart-\(h.escape(id))-numbers\"><summary>The numbers (\(h.escape(title)))</summary><div class=\"scroll\">"
            + "<table id=\"chart-\(h.escape(id))-table\"><caption>\(h.escape(title))</caption><thead><tr><th scope=\"col\">Interval</th>"
        let stacked = style == .stackedBars
        out += series.map { "<th scope=\"col\">\(h.escape($0.name))\(unit.isEmpty ? "" : " (" + h.escape(unit) + ")")</th>" }.joined()
            + (stacked ? "<th scope=\"col\">Total</th>" : "") + "</tr></thead><tbody>"
        let totals = self.totals
        for (i, label) in labels.enumerated() {
            out += "<tr><th scope=\"row\">\(h.escape(label))</th>"
                + series.map { s in "<td class=\"k-number\">\(s.value(i).map(String.init) ?? (stacked ? "0" : "–"))</td>" }.joined()
                + (stacked ? "<td class=\"k-number\">\(totals[i])</td>" : "") + "</tr>"
        }
        return out + "</tbody></table></div></details>"
    }
}
