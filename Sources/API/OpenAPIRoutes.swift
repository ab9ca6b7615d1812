import Crypto
import Hummingbird

/// GET /v1/openapi.json: the OpenAPI document of this API (Sources/API/openapi.json, embedded in
/// the binary at build time, so the document served is always the one the binary was built and
/// tested with). No token: it holds no secret and no data, and code generators and API explorers
/// fetch it before they have a credential. Cacheable for 5 minutes, with an `ETag` (a digest of
/// the document) that a client revalidates with `If-None-Match` (304 when unchanged).
struct OpenAPIRoutes<Context: RequestContext> {
    static var document: [UInt8] { PackageResources.openapi_json }
    static var etag: String {
        let digits = Array("0123456789abcdef")
        return "\"" + String(SHA256.hash(data: document).prefix(12).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }) + "\""
    }

    func register(on router: Router<Context>) {
        let etag = Self.etag
        let body = ByteBuffer(bytes: Self.document)
        router.get("v1/openapi.json") { request, _ -> Response in
            var headers: HTTPFields = [.cacheControl: "public, max-age=300", .eTag: etag]
            let offered = (request.headers[.ifNoneMatch] ?? "").split(separator: ",").map { $0.filter { $0 != " " } }
            if offered.contains(where: { $0 == etag || $0 == "W/" + etag || $0 == "*" }) {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
        }
    }
}
