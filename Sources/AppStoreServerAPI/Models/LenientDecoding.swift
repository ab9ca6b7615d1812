import Foundation

/// Apple adds fields to its responses and has, rarely, changed a field's type. A response must not
/// fail because one field we do not depend on is odd: each field is read on its own, a missing or
/// ill-typed one becomes `nil`, and unknown fields are ignored. (`AppleSignedData` does the same
/// for signed payloads; this copy keeps the two targets independent.)
extension KeyedDecodingContainer {
    func lenient<Value: Decodable>(_ key: Key) -> Value? {
        (try? decodeIfPresent(Value.self, forKey: key)) ?? nil
    }

    /// An integer Apple may send as a number or as a string of digits.
    func lenientInt64(_ key: Key) -> Int64? {
        if let number: Int64 = lenient(key) { return number }
        return (lenient(key) as String?).flatMap { Int64($0) }
    }
}

extension Date {
    /// Apple's timestamps: milliseconds since 1970.
    init(serverAPIMilliseconds milliseconds: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(milliseconds) / 1_000)
    }

    var serverAPIMilliseconds: Int64 {
        Int64((timeIntervalSince1970 * 1_000).rounded(.down))
    }
}

/// One JSON decoder for every response (responses are small; creating one per call is cheap but
/// needless).
enum ServerAPIJSON {
    static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) -> T? {
        try? JSONDecoder().decode(type, from: Data(body))
    }

    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }
}
