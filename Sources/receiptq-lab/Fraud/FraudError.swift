/// A run that cannot go on (a setup the attacks rely on failed).
struct FraudError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
