import CLibPQ
import Foundation

/// A statement's parameters as libpq takes them: one buffer, length, format and type per
/// parameter, owned until the call returns.
///
/// Arrays of strings — a batch's receipts, signed transactions, ids — travel in PostgreSQL's
/// binary array format, declared `text[]`: each element is a length and its bytes. As a text
/// literal the server parsed them character by character, quotes and escapes, before the
/// statement could start: 10–20 ms of a 500-row batch of 4 KB signed transactions, as much as
/// half of inserting them (issue 30). A statement that casts such a parameter (`$1::text[]`,
/// `$7::uuid[]`, `$4::jsonb[]`) reads it as before: the cast from `text[]` is the element's own
/// input function. An element's bytes are sent as they are, with their length, so an embedded
/// NUL is refused by the server's encoding check instead of cutting the value short. Everything
/// else travels as text, the type left to the statement.
struct PostgresParameters: ~Copyable {
    /// `text[]` (pg_type.oid), the type declared for a binary array of strings.
    static let textArrayType: Oid = 1009
    /// `text`, each element's type inside it.
    static let textType: Oid = 25

    private(set) var values: [UnsafeMutablePointer<CChar>?] = []
    private(set) var lengths: [Int32] = []
    private(set) var formats: [Int32] = []
    private(set) var types: [Oid] = []

    init(_ parameters: [(any PostgresEncodable)?]) {
        for parameter in parameters {
            if let strings = (parameter as? any PostgresStringArray)?.postgresStrings {
                let size = Self.binaryTextArraySize(strings)
                guard let start = malloc(max(size, 1)) else { fatalError("out of memory for a \(size)-byte parameter") }
                Self.writeBinaryTextArray(strings, into: UnsafeMutableRawBufferPointer(start: start, count: size))
                append(start.assumingMemoryBound(to: CChar.self), length: size, format: 1, type: Self.textArrayType)
            } else if let text = parameter?.postgresText {
                append(strdup(text), length: 0, format: 0, type: 0)
            } else {
                append(nil, length: 0, format: 0, type: 0)
            }
        }
    }

    private mutating func append(_ value: UnsafeMutablePointer<CChar>?, length: Int, format: Int32, type: Oid) {
        values.append(value)
        lengths.append(Int32(clamping: length))
        formats.append(format)
        types.append(type)
    }

    deinit {
        // Every buffer comes from malloc (strdup or malloc above).
        values.forEach { free($0) }
    }

    var count: Int32 { Int32(values.count) }

    /// Lends libpq the four arrays for the duration of `body`.
    func withPointers<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<Int32>, UnsafePointer<Int32>,
                                  UnsafePointer<Oid>) -> R) -> R {
        let pointers = values.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { p in
            lengths.withUnsafeBufferPointer { l in
                formats.withUnsafeBufferPointer { f in
                    types.withUnsafeBufferPointer { t in
                        // An empty array's base address may be nil; libpq reads none of it then.
                        body(p.baseAddress ?? UnsafePointer(bitPattern: 1)!, l.baseAddress ?? UnsafePointer(bitPattern: 4)!,
                             f.baseAddress ?? UnsafePointer(bitPattern: 4)!, t.baseAddress ?? UnsafePointer(bitPattern: 4)!)
                    }
                }
            }
        }
    }

    /// `array_send`'s layout for a one-dimensional `text[]` (big-endian): dimensions, a has-nulls
    /// flag, the element type, then the length and lower bound of the dimension, then each
    /// element as its byte length (-1 for NULL) and its bytes. No dimension for an empty array.
    static func binaryTextArraySize(_ strings: [String?]) -> Int {
        strings.reduce(strings.isEmpty ? 12 : 20) { $0 + 4 + ($1?.utf8.count ?? 0) }
    }

    /// Writes `binaryTextArraySize(strings)` bytes at the start of `buffer`, copied once.
    static func writeBinaryTextArray(_ strings: [String?], into buffer: UnsafeMutableRawBufferPointer) {
        var offset = 0
        func put(_ value: Int32) {
            buffer.storeBytes(of: value.bigEndian, toByteOffset: offset, as: Int32.self)
            offset += 4
        }
        put(strings.isEmpty ? 0 : 1)
        put(strings.contains { $0 == nil } ? 1 : 0)
        put(Int32(bitPattern: textType))
        if !strings.isEmpty {
            put(Int32(clamping: strings.count))
            put(1)
        }
        for string in strings {
            guard var string else { put(-1); continue }
            let count = string.utf8.count
            put(Int32(clamping: count))
            string.withUTF8 { utf8 in
                UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + count)]).copyMemory(from: UnsafeRawBufferPointer(utf8))
            }
            offset += count
        }
    }
}

/// An array parameter of strings, sent as a binary `text[]` (see `PostgresParameters`).
protocol PostgresStringArray {
    var postgresStrings: [String?] { get }
}

extension Array: PostgresStringArray where Element: PostgresStringElement {
    var postgresStrings: [String?] { map(\.postgresString) }
}

/// What may be an element of a binary `text[]`: a string, or an optional one (NULL).
protocol PostgresStringElement {
    var postgresString: String? { get }
}

extension String: PostgresStringElement {
    var postgresString: String? { self }
}

extension Optional: PostgresStringElement where Wrapped == String {
    var postgresString: String? { self }
}
