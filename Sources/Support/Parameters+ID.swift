import HTTPFront
import Hummingbird
import ReceiptQueue

extension Parameters {
    /// An id from the path of a support route or a console page, decoded once (`HTTPFront`): a
    /// customer whose id holds a space or an `@` is that customer, never an empty one named
    /// `%20`. Bad encoding, an empty or an over-long id is a 400 naming the parameter.
    func id(_ name: String) throws -> String {
        do {
            guard let value = try decoded(name) else { throw SupportError(.notFound, "no \(name) in the path") }
            return value
        } catch let error as PathParameterError {
            throw SupportError(.invalid, error.description)
        }
    }
}
