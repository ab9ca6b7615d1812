import Foundation

/// An older spelling of an option that still works: hidden from `--help`, with one warning on
/// stderr naming its replacement, so scripts keep running while their owners are told.
public enum DeprecatedSpelling {
    public static func warn(_ old: String, instead new: String) {
        FileHandle.standardError.write(Data("warning: \(old) is deprecated and will be removed; use \(new)\n".utf8))
    }
}
