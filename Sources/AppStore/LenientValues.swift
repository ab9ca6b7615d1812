/// Apple is inconsistent about JSON types: identifiers and quantities arrive as strings, the
/// retry hint as `true` or `1`. These wrappers accept each spelling seen in the field.

/// A value Apple sends as a string or as a number; kept as the string.
struct LenientString: Decodable {
    let value: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            value = string
        } else if let integer = try? container.decode(Int64.self) {
            value = String(integer)
        } else if let double = try? container.decode(Double.self) {
            value = String(double)
        } else if let bool = try? container.decode(Bool.self) {
            value = String(bool)
        } else {
            throw DecodingError.typeMismatch(String.self, .init(codingPath: decoder.codingPath, debugDescription: "not a string or number"))
        }
    }
}

/// A flag Apple sends as `true`/`false`, `1`/`0`, or `"true"`/`"1"`.
struct LenientBool: Decodable {
    let value: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            value = bool
        } else if let integer = try? container.decode(Int.self) {
            value = integer != 0
        } else if let string = try? container.decode(String.self) {
            value = ["true", "1", "yes"].contains(string.lowercased())
        } else {
            throw DecodingError.typeMismatch(Bool.self, .init(codingPath: decoder.codingPath, debugDescription: "not a bool or 0/1"))
        }
    }
}

extension KeyedDecodingContainer {
    func lenientString(_ key: Key) -> String? {
        (try? decodeIfPresent(LenientString.self, forKey: key))??.value
    }

    func lenientBool(_ key: Key) -> Bool? {
        (try? decodeIfPresent(LenientBool.self, forKey: key))??.value
    }
}

/// An entry of a list that may not decode; kept as nil instead of failing the whole list.
private struct LenientElement<Element: Decodable>: Decodable {
    let value: Element?
    init(from decoder: any Decoder) throws { value = try? Element(from: decoder) }
}

extension KeyedDecodingContainer {
    /// A list Apple sends as an array — or, in older shapes, as one object. Entries that do not
    /// decode are dropped; a missing key, `null` or any other type is an empty list.
    func lenientList<Element: Decodable>(_ type: Element.Type, _ key: Key) -> [Element] {
        if let list = try? decodeIfPresent([LenientElement<Element>].self, forKey: key) {
            return list.compactMap(\.value)
        }
        if let single = try? decodeIfPresent(LenientElement<Element>.self, forKey: key), let value = single.value {
            return [value]
        }
        return []
    }
}
