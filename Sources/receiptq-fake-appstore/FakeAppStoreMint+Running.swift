import ArgumentParser
import FakeAppStore
import Foundation
import HTTPClient

extension FakeAppStoreMint {
    /// `--fake-url`: the running fake mints and signs (its admin API), so what is printed is
    /// what a default API accepts once it trusts that fake's root, and what the fake's
    /// verifyReceipt and App Store Server API know.
    func mintWithRunningFake(at base: String) async throws {
        guard let url = URL(string: base), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--fake-url must be the fake's base URL, e.g. http://127.0.0.1:8787")
        }
        guard forcedStatus == nil, size == nil else {
            throw ValidationError("--forced-status and --size belong to the fake's JSON format: leave out --fake-url to use them")
        }
        let root = base.hasSuffix("/") ? String(base.dropLast()) : base
        let http = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 2, defaultTimeout: .seconds(30)))
        do {
            let lines: [String]
            if signedTransaction.isEmpty {
                lines = [try await mintReceipt(root, http)]
            } else {
                guard FakeEnvironment(loosely: environment) != nil else { throw ValidationError("--environment must be production or sandbox") }
                if let appAccountToken, UUID(uuidString: appAccountToken) == nil { throw ValidationError("--app-account-token must be a UUID") }
                var signed: [String] = []
                for (id, product, type) in try signedTransactionParts() {
                    signed.append(try await mintSignedTransaction(id: id, product: product, type: type, root, http))
                }
                lines = signed
            }
            let pem = (rootOut != nil || printRoot) ? try await fetch(root + "/fake/root.pem", http) : nil
            if let rootOut, let pem {
                guard FileManager.default.createFile(atPath: rootOut, contents: Data(pem.utf8)) else {
                    throw ValidationError("--root-out \(rootOut): cannot write the file")
                }
            }
            await http.shutdown()
            print((lines + (printRoot ? [pem ?? ""] : [])).joined(separator: "\n"))
        } catch {
            await http.shutdown()
            throw error
        }
    }

    private func mintReceipt(_ root: String, _ http: HTTPClient) async throws -> String {
        guard let environment = FakeReceipt.Environment(rawValue: environment.capitalized) else {
            throw ValidationError("--environment must be production or sandbox")
        }
        let receipt = FakeReceipt(bundleID: bundleID, environment: environment, inApp: try transactions())
        let answer = try await post(root + "/fake/admin/receipts", JSONEncoder().encode(receipt), http)
        guard let data = answer["receipt_data"] as? String else { throw ValidationError("the fake answered without receipt_data") }
        if verbose { FileHandle.standardError.write(Data("\(String(decoding: try JSONEncoder().encode(receipt), as: UTF8.self))\n".utf8)) }
        return data
    }

    private func mintSignedTransaction(id: String, product: String, type: String?, _ root: String, _ http: HTTPClient) async throws -> String {
        let purchase = FakePurchaseRequest(productId: product, type: type, environment: environment.lowercased(), transactionId: id,
                                           appAccountToken: appAccountToken, notify: false)
        _ = try await post(root + "/fake/admin/purchases", JSONEncoder().encode(purchase), http)
        let request = try JSONSerialization.data(withJSONObject: ["transactionId": id, "environment": environment.lowercased()])
        guard let jws = try await post(root + "/fake/admin/signed-transaction", request, http)["signedTransaction"] as? String else {
            throw ValidationError("the fake answered without signedTransaction")
        }
        return jws
    }

    private func post(_ url: String, _ body: Data, _ http: HTTPClient) async throws -> [String: Any] {
        let response: HTTPResponse
        do {
            response = try await http.post(url: url, headers: ["Content-Type": "application/json"], body: Array(body))
        } catch let error as HTTPClientError {
            throw ValidationError("--fake-url: \(url): \(error) (is receiptq-fake-appstore serving there?)")
        }
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        guard (200...299).contains(response.status) else {
            throw ValidationError("--fake-url: \(url) answered HTTP \(response.status): \(object["error"] as? String ?? "")")
        }
        return object
    }

    private func fetch(_ url: String, _ http: HTTPClient) async throws -> String {
        let response: HTTPResponse
        do {
            response = try await http.send(.get, url: url)
        } catch let error as HTTPClientError {
            throw ValidationError("--fake-url: \(url): \(error)")
        }
        guard response.status == 200 else { throw ValidationError("--fake-url: \(url) answered HTTP \(response.status)") }
        return String(decoding: response.body, as: UTF8.self)
    }
}
