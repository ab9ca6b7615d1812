/// What `receiptq enqueue` has done so far: lines read, receipts stored new or already there,
/// and the numbers of the bad lines (the first few, to print), for the progress line on stderr
/// and the summary on stdout. Never holds a line's content: receipts are not printed.
struct EnqueueTally: Equatable {
    var lines = 0
    var created = 0
    var existing = 0
    var badLines = 0
    var firstBadLines: [Int] = []

    static let badLinesShown = 20

    mutating func bad(line: Int) {
        badLines += 1
        if firstBadLines.count < Self.badLinesShown { firstBadLines.append(line) }
    }

    var progress: String {
        "enqueue: \(lines) lines read, \(created + existing) stored (\(created) new, \(existing) already submitted), \(badLines) bad"
    }

    var summary: String {
        var text = "enqueued \(created) new, \(existing) already submitted (same receipt and transaction)"
        if badLines > 0 {
            let shown = firstBadLines.map(String.init).joined(separator: ", ")
            text += "; \(badLines) bad line\(badLines == 1 ? "" : "s") not stored (line \(shown)\(badLines > firstBadLines.count ? ", …" : ""))"
        }
        return text
    }
}
