import AppStoreServerAPI
import ArgumentParser
import CommandSupport
import Foundation
import ReceiptQueue
import Support

/// `receiptq support …`: customer support and fleet control by hand — the same audited
/// operations as the support listener's admin API and console (`receiptq support serve`).
/// Reads print JSON; every change needs `--operator` and `--why` and prints its audit row's id.
struct SupportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "support",
        abstract: "Customer support and fleet control: look up, grant, revoke, transfer, extend, pause, re-drive (audited).",
        subcommands: [
            SupportServeCommand.self, Customer.self, Purchase.self, Order.self, Refunds.self, Extend.self, MassExtend.self,
            MassExtendStatus.self, Grant.self, Revoke.self, Transfer.self, Pause.self, Resume.self, Workers.self, RedriveJobs.self,
            Discard.self, RedriveNotifications.self, RedriveDeliveries.self, Audit.self,
        ])

    struct Customer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One app account's grants, entitlements, subscriptions, orders, jobs, notifications, deliveries.")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @Argument(help: "The app account (user id).") var userId: String
        func run() async throws {
            try await SupportSession.run(database: database, serverAPI: nil) { try await $0.customer(userID: userId) }
        }
    }

    struct Purchase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One purchase's story, by its original transaction id.")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @Argument(help: "The original transaction id.") var originalTransactionId: String
        func run() async throws {
            try await SupportSession.run(database: database, serverAPI: nil) { try await $0.purchase(originalTransactionID: originalTransactionId) }
        }
    }

    struct Order: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Look Up Order ID at Apple (the order id on the customer's receipt e-mail).")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup(title: "App Store Server API and signed data") var serverAPI: ServerAPIOptions
        @Argument(help: "The App Store order id.") var orderId: String
        func run() async throws {
            try await SupportSession.run(database: database, serverAPI: serverAPI) { try await $0.lookUpOrder(orderId) }
        }
    }

    struct Refunds: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Get Refund History at Apple, beside the ledger's revocations.")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup(title: "App Store Server API and signed data") var serverAPI: ServerAPIOptions
        @Argument(help: "An original transaction id of the customer.") var originalTransactionId: String
        func run() async throws {
            try await SupportSession.run(database: database, serverAPI: serverAPI) { try await $0.refundHistory(originalTransactionID: originalTransactionId) }
        }
    }

    struct Extend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Extend one subscriber's renewal date at Apple (audited).")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup(title: "App Store Server API and signed data") var serverAPI: ServerAPIOptions
        @OptionGroup var actor: SupportActorOptions
        @Argument(help: "The subscription's original transaction id.") var originalTransactionId: String
        @Option(help: "Days to extend by (1–90).") var days: Int
        @Option(help: "Apple's extendReasonCode: 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage. Default: 3.")
        var reasonCode: Int = 3
        func run() async throws {
            guard let reason = ExtendReasonCode(rawValue: reasonCode) else { throw ValidationError("--reason-code must be 0…3") }
            let action = try actor.action()
            try await SupportSession.run(database: database, serverAPI: serverAPI) {
                try await $0.extend(originalTransactionID: originalTransactionId, days: days, reason: reason, action)
            }
        }
    }

    struct MassExtend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Extend every active subscriber of a product at Apple (audited); --wait polls Apple's status until complete.")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup(title: "App Store Server API and signed data") var serverAPI: ServerAPIOptions
        @OptionGroup var actor: SupportActorOptions
        @Option(help: "The subscription product id.") var product: String
        @Option(help: "Days to extend by (1–90).") var days: Int
        @Option(help: "Apple's extendReasonCode (0–3). Default: 3.") var reasonCode: Int = 3
        @Option(help: "Only subscribers of this storefront (ISO 3166-1 alpha-3; repeatable). Default: all.") var storefront: [String] = []
        @Flag(help: "Ask the sandbox. Default: off (production).") var sandbox = false
        @Flag(help: "Poll Apple's status every 2 s until the extension completes. Default: off.") var wait = false
        func run() async throws {
            guard let reason = ExtendReasonCode(rawValue: reasonCode) else { throw ValidationError("--reason-code must be 0…3") }
            let action = try actor.action()
            let environment: ServerAPIEnvironment = sandbox ? .sandbox : .production
            try await SupportSession.run(database: database, serverAPI: serverAPI) { operations in
                let started = try await operations.massExtend(productID: product, days: days, reason: reason,
                                                              storefronts: storefront.isEmpty ? nil : storefront, environment: environment, action)
                guard wait, let identifier = (try? JSONSerialization.jsonObject(with: Data(started.utf8)) as? [String: Any])?["request_identifier"] as? String
                else { return started }
                print(started)
                while true {
                    let status = try await operations.massExtensionStatus(productID: product, requestIdentifier: identifier, environment: environment)
                    if status.contains("\"complete\": true") { return status }
                    try await Task.sleep(for: .seconds(2))
                }
            }
        }
    }

    struct MassExtendStatus: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A mass renewal-date extension's status at Apple.")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup(title: "App Store Server API and signed data") var serverAPI: ServerAPIOptions
        @Option(help: "The subscription product id.") var product: String
        @Option(help: "The request identifier mass-extend printed.") var requestIdentifier: String
        @Flag(help: "Ask the sandbox. Default: off (production).") var sandbox = false
        func run() async throws {
            try await SupportSession.run(database: database, serverAPI: serverAPI) {
                try await $0.massExtensionStatus(productID: product, requestIdentifier: requestIdentifier, environment: sandbox ? .sandbox : .production)
            }
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Grant a product by hand (goodwill; marked manual, grant.granted_manually event, audited).")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup var actor: SupportActorOptions
        @Option(help: "The app account.") var user: String
        @Option(help: "The product id.") var product: String
        @Option(help: "A unique reference (a ticket id): the grant's key is manual:<reference>.") var reference: String
        @Option(help: "consumable, non_consumable, auto_renewable or non_renewing (required).") var productType: String
        @Option(help: "A subscription's end of access, ISO 8601 (2026-12-31T00:00:00Z); or --days.") var expiresAt: String?
        @Option(help: "A subscription's access in days from now (1-3650); or --expires-at.") var days: Int?

        func validate() throws {
            guard SupportLedger.productTypes.contains(productType) else {
                throw ValidationError("--product-type must be one of \(SupportLedger.productTypes.sorted().joined(separator: ", "))")
            }
            if let expiresAt, SupportOperations.parseDate(expiresAt) == nil {
                throw ValidationError("--expires-at must be an ISO 8601 date and time, e.g. 2026-12-31T00:00:00Z")
            }
        }

        func run() async throws {
            let action = try actor.action()
            let ends = try SupportLedger.accessEnd(expiresAt: expiresAt.flatMap(SupportOperations.parseDate), days: days)
            try await SupportSession.run(database: database, serverAPI: nil) {
                "{\"purchase_key\": \"manual:\(reference)\", \"audit_id\": \(try await $0.grant(userID: user, productID: product, reference: reference, productType: productType, expiresAt: ends, action))}"
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a grant by hand (kept, grant.revoked event, audited).")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup var actor: SupportActorOptions
        @Argument(help: "The grant's purchase key (purchase:…, period:…, manual:…).") var purchaseKey: String
        func run() async throws {
            let action = try actor.action()
            try await SupportSession.run(database: database, serverAPI: nil) {
                "{\"audit_id\": \(try await $0.revoke(purchaseKey: purchaseKey, action))}"
            }
        }
    }

    struct Transfer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move a purchase to another app account under the transfer policy (docs/support.md; audited).")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup(title: "App Store Server API and signed data") var serverAPI: ServerAPIOptions
        @OptionGroup var actor: SupportActorOptions
        @Argument(help: "The purchase's original transaction id.") var originalTransactionId: String
        @Option(help: "The app account that gets it.") var toUser: String
        @Option(help: "Also Set App Account Token at Apple to this UUID (the new account's). Default: none.") var appAccountToken: String?
        func run() async throws {
            let action = try actor.action()
            let token = try appAccountToken.map { text -> UUID in
                guard let uuid = UUID(uuidString: text) else { throw ValidationError("--app-account-token must be a UUID") }
                return uuid
            }
            try await SupportSession.run(database: database, serverAPI: serverAPI) {
                "{\"audit_id\": \(try await $0.transfer(originalTransactionID: originalTransactionId, toUser: toUser, appAccountToken: token, action))}"
            }
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pause the fleet: workers claim no job until resumed (audited).")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup var actor: SupportActorOptions
        func run() async throws {
            let action = try actor.action()
            try await SupportSession.run(database: database, serverAPI: nil) { try SupportOperationsText.fleet(try await $0.setPaused(true, action)) }
        }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resume the fleet (audited).")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup var actor: SupportActorOptions
        func run() async throws {
            let action = try actor.action()
            try await SupportSession.run(database: database, serverAPI: nil) { try SupportOperationsText.fleet(try await $0.setPaused(false, action)) }
        }
    }

    struct Workers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The workers that beat (live: a beat within three intervals) and the jobs each holds.")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        func run() async throws {
            try await SupportSession.run(database: database, serverAPI: nil) { try SupportOperationsText.json(try await $0.workers()) }
        }
    }

    struct RedriveJobs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-drive failed jobs (audited): --job, or --failed-within.")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup var actor: SupportActorOptions
        @Option(name: .customLong("job"), help: "A failed job's id (repeatable).") var jobs: [Int64] = []
        @Option(help: "Every job that failed within this long, e.g. 7d.") var failedWithin: Duration?
        func run() async throws {
            let action = try actor.action()
            try await SupportSession.run(database: database, serverAPI: nil) {
                try SupportOperationsText.json(try await $0.redriveJobs(ids: jobs, failedWithin: failedWithin, action))
            }
        }
    }

    struct Discard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Discard queued or timed-out jobs into failed (kept, re-drivable; job.failed events; audited).")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup var actor: SupportActorOptions
        @Option(name: .customLong("job"), help: "A job's id (repeatable).") var jobs: [Int64] = []
        func run() async throws {
            let action = try actor.action()
            try await SupportSession.run(database: database, serverAPI: nil) { try SupportOperationsText.json(try await $0.discardJobs(ids: jobs, action)) }
        }
    }

    struct RedriveNotifications: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-drive failed or quarantined notifications (audited); none named: every quarantined one.")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup var actor: SupportActorOptions
        @Option(name: .customLong("notification"), help: "A notification UUID (repeatable).") var notifications: [String] = []
        func run() async throws {
            let action = try actor.action()
            let uuids = try notifications.map { text -> UUID in
                guard let uuid = UUID(uuidString: text) else { throw ValidationError("--notification must be a UUID") }
                return uuid
            }
            try await SupportSession.run(database: database, serverAPI: nil) { try SupportOperationsText.json(try await $0.redriveNotifications(uuids: uuids, action)) }
        }
    }

    struct RedriveDeliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-drive failed webhook deliveries, of one endpoint or all (audited).")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup var actor: SupportActorOptions
        @Option(help: "Only this endpoint's. Default: every endpoint's.") var endpoint: String?
        func run() async throws {
            let action = try actor.action()
            try await SupportSession.run(database: database, serverAPI: nil) { try SupportOperationsText.json(try await $0.redriveDeliveries(endpoint: endpoint, action)) }
        }
    }

    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The audit log, newest first.")
        @OptionGroup(title: "Database") var database: DatabaseOptions
        @Option(help: "Only this subject's rows (user:…, job:…, original_transaction:…, fleet). Default: all.") var subject: String?
        @Option(help: "At most this many rows. Default: 100.") var limit: Int = 100
        func run() async throws {
            try await SupportSession.run(database: database, serverAPI: nil) { try SupportOperationsText.json(try await $0.audit(subject: subject, limit: limit)) }
        }
    }
}

/// Answers as the CLI prints them.
enum SupportOperationsText {
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func fleet(_ answer: (FleetControl.State, Int64)) throws -> String {
        "{\"paused\": \(answer.0.paused), \"audit_id\": \(answer.1)}"
    }
}
