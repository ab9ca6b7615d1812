import Foundation
import Hummingbird

/// Reading JSON request bodies and writing JSON responses, with the checks every POST shares.
enum JSONBody {
    /// Checks `Content-Type` (415), `Content-Length` (413 before reading), then reads at most
    /// `limit` bytes (413 as soon as more arrive: the body is never buffered past the limit),
    /// then decodes (400).
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        try decode(type, from: try await read(request, limit: limit))
    }

    /// The body's bytes, after the `Content-Type` and size checks of `decode`: for a route that
    /// also reads a member no `Decodable` type describes.
    static func read(_ request: Request, limit: Int) async throws -> Data {
        let contentType = request.headers[.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard contentType == "application/json" else {
            throw Problem(.unsupportedMediaType, "send Content-Type: application/json")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Problem(.tooLarge, "the request body is larger than \(limit) bytes")
        }
        let buffer = try await request.body.collect(upTo: limit)
        return Data(buffer.readableBytesView)
    }

    /// Decodes bytes `read` returned (400 naming the field on a missing or mistyped member).
    static func decode<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch let problem as Problem {
            throw problem
        } catch DecodingError.keyNotFound(let key, _) {
            throw Problem.invalid(key.stringValue, "\(key.stringValue) is required")
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let field = context.codingPath.first?.stringValue ?? "body"
            throw Problem.invalid(field, "\(field) has the wrong type")
        } catch {
            throw Problem(.malformedJSON, "the body is not a JSON object of the documented shape")
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
