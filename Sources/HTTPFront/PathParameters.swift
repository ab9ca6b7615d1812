import Foundation
import Hummingbird

/// A path parameter a route could not read as the client meant it.
public struct PathParameterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The parameter's name (`user_id`).
    public var name: String
    public var description: String

    public init(name: String, _ description: String) {
        self.name = name
        self.description = description
    }
}

extension Parameters {
    /// The longest id a path may carry, in characters once decoded: the schema's longest id
    /// (`user_id`, 256).
    public static let longestID = 256

    /// The path parameter `name` as the client meant it: percent-decoded exactly once
    /// (`ann%20smith%40example.com` is `ann smith@example.com`, `a%2Fb` is `a/b`, `%2525` is `%25`,
    /// `%C3%A9` is `é`), nil when the route has none. Hummingbird matches routes on the raw path and
    /// hands its components over still encoded, so every route of the API, the support API and the
    /// console reads its ids through here: an id round-trips byte for byte, and a customer named
    /// with a space is never looked up as `%20`.
    ///
    /// Throws for what is no id at all: an invalid escape (`%zz`, `%` at the end), bytes that are
    /// not UTF-8 (`%FF`), an empty value, or one longer than `maxLength` characters.
    public func decoded(_ name: String, maxLength: Int = Parameters.longestID) throws(PathParameterError) -> String? {
        guard let raw = self.get(name) else { return nil }
        guard let value = String(raw).removingPercentEncoding else {
            throw PathParameterError(name: name, "\(name) in the path is not valid percent-encoded UTF-8")
        }
        guard !value.isEmpty else { throw PathParameterError(name: name, "\(name) in the path must not be empty") }
        guard value.unicodeScalars.count <= maxLength else {
            throw PathParameterError(name: name, "\(name) in the path is longer than \(maxLength) characters")
        }
        return value
    }
}
