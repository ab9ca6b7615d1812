/// The request methods the client sends. verifyReceipt is POST only; the App Store Server API
/// also reads with GET and sends consumption information with PUT.
public enum HTTPMethod: String, Sendable, Hashable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
}
