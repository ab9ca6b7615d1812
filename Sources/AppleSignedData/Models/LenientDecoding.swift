import Foundation

/// Apple's signed payloads gain fields over time and a field's type has, rarely, changed. A purchase
/// must not be refused because one field we do not depend on is odd, so each field is read on its
/// own: missing or ill-typed fields become `nil`; unknown fields are ignored.
extension KeyedDecodingContainer {
    func lenient<Value: Decodable>(_ key: Key) -> Value? {
        (try? decodeIfPresent(Value.self, forKey: key)) ?? nil
    }

    /// A UUID, read from its string form; a malformed token becomes `nil` rather than a failure.
    func lenientUUID(_ key: Key) -> UUID? {
        (lenient(key) as String?).flatMap(UUID.init(uuidString:))
    }
}

extension Date {
    /// Apple's timestamps are milliseconds since 1970 (UTC).
    public init(appStoreMilliseconds milliseconds: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(milliseconds) / 1_000)
    }

    /// This date as Apple writes timestamps: milliseconds since 1970, truncated.
    public var appStoreMilliseconds: Int64 {
        Int64((timeIntervalSince1970 * 1_000).rounded(.down))
    }
}
