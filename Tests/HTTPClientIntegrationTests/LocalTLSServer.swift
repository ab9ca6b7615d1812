import Crypto
import Foundation
import ReceiptQueueTesting
import SwiftASN1
import X509

/// A certificate authority made for one test: a root, and a server certificate for 127.0.0.1 and
/// localhost it signs. Written as PEM files a TLS server (and `--ca-bundle`) can read.
struct TestCertificateAuthority {
    let directory: URL
    let caFile: URL
    let certificateFile: URL
    let keyFile: URL

    init(name: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let now = Date()
        let validity = now.addingTimeInterval(-3600)...now.addingTimeInterval(3600)
        let rootKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("\(name) root") }
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound, issuer: rootName, subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(rootKey.publicKey))
            },
            issuerPrivateKey: .init(rootKey))
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound, issuer: rootName,
            subject: try DistinguishedName { CommonName("127.0.0.1") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: .init(rootKey.publicKey)).keyIdentifier)
            },
            issuerPrivateKey: .init(rootKey))
        caFile = directory.appendingPathComponent("ca.pem")
        certificateFile = directory.appendingPathComponent("server.pem")
        keyFile = directory.appendingPathComponent("server-key.pem")
        try root.serializeAsPEM().pemString.write(to: caFile, atomically: true, encoding: .utf8)
        try server.serializeAsPEM().pemString.write(to: certificateFile, atomically: true, encoding: .utf8)
        try serverKey.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
    }
}

/// An HTTPS server on 127.0.0.1 answering every POST with `{"status": 21003}` (a verifyReceipt
/// answer), run by python3's ssl module in a child process: the project has no TLS server of its
/// own, and the client under test must be our libcurl engine, not another library.
final class LocalTLSServer: Sendable {
    let port: Int
    private let child: ChildProcess

    static let script = """
        import http.server, ssl, sys
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                body = b'{"status": 21003}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    init(authority: TestCertificateAuthority) async throws {
        let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/python3"
        let scriptFile = authority.directory.appendingPathComponent("server.py")
        try Self.script.write(to: scriptFile, atomically: true, encoding: .utf8)
        let child = try ChildProcess(URL(fileURLWithPath: python),
                                     arguments: [scriptFile.path, authority.certificateFile.path, authority.keyFile.path])
        var found: Int?
        _ = await eventually(timeout: .seconds(20)) {
            found = Int(child.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            return found != nil
        }
        guard let found else { throw ServerDidNotStart(detail: child.stderr) }
        self.child = child
        port = found
    }

    struct ServerDidNotStart: Error, CustomStringConvertible {
        var detail: String
        var description: String { "the python3 TLS server did not start: \(detail)" }
    }

    var url: String { "https://127.0.0.1:\(port)/verifyReceipt" }

    func stop() { child.kill(SIGTERM) }
}
