import Foundation

/// The lines of a file or pipe, read in 64 KiB chunks: memory stays bounded by the longest line
/// (itself capped at `maxLength`), never by the file, so a backfill of millions of receipts
/// streams. A line over the cap is skipped to its end and reported as `.tooLong`, not buffered.
struct LineReader {
    enum Line: Equatable {
        case text(Data)
        case tooLong
    }

    private let handle: FileHandle
    private let maxLength: Int
    private var buffer: [UInt8] = []
    private var position = 0          // the start of the current line in `buffer`
    private var scanned = 0           // bytes after `position` known to hold no newline
    private var atEnd = false
    private var discarding = false    // inside a line over the cap

    init(_ handle: FileHandle, maxLength: Int = 4 << 20) {
        self.handle = handle
        self.maxLength = maxLength
    }

    /// The next line without its `\n` (a trailing `\r` is left for the JSON decoder, which
    /// ignores it as whitespace), or nil at the end.
    mutating func next() throws -> Line? {
        while true {
            if let newline = buffer[(position + scanned)...].firstIndex(of: 0x0A) {
                let line = Data(buffer[position..<newline])
                position = newline + 1
                scanned = 0
                if discarding {
                    discarding = false
                    return .tooLong
                }
                return .text(line)
            }
            scanned = buffer.count - position
            if scanned > maxLength || discarding {
                discarding = true
                position = buffer.count
                scanned = 0
            }
            if atEnd {
                defer { position = buffer.count; scanned = 0 }
                if discarding {
                    discarding = false
                    return .tooLong
                }
                return position < buffer.count ? .text(Data(buffer[position...])) : nil
            }
            // Drop what was consumed before reading more: the buffer holds one line and a chunk.
            buffer.removeFirst(position)
            position = 0
            let chunk = try handle.read(upToCount: 65_536) ?? Data()
            if chunk.isEmpty { atEnd = true } else { buffer.append(contentsOf: chunk) }
        }
    }
}
