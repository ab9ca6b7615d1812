import HTTPFront
import Hummingbird

extension FieldRules {
    /// An id from the path: percent-decoded once (`HTTPFront`), then held to the same rules as
    /// the field in a body. Bad encoding, an empty or an over-long id is a 400 problem naming it.
    static func pathIdentifier(_ parameters: Parameters, _ name: String) throws -> String {
        let value: String?
        do {
            value = try parameters.decoded(name, maxLength: maxLengths[name] ?? Parameters.longestID)
        } catch {
            throw Problem.invalid(name, error.description)
        }
        return try identifier(value, name)
    }
}
