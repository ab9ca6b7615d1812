/// A coding key made from any string, for Apple's fields whose spelling varies
/// (`is_retryable` and `is-retryable`).
struct AnyCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
