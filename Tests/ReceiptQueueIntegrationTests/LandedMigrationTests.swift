import Foundation
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// A migration never changes once it has landed (DESIGN: invariant 12): databases migrated by an
/// earlier release recorded its checksum, and `receiptq migrate` refuses to go on past a changed
/// one. Every landed migration is pinned here by its SHA-256; a new migration is pinned when it
/// lands (the failure prints the line to add). Editing a pinned one fails here, long before an
/// operator's upgrade would.
@Suite("Migrations: a landed migration never changes")
struct LandedMigrationTests {
    static let landed: [String: String] = [
        "0001_queue.sql": "0d364aa3c0cf2acde79218974368377140a5896f132a7d6327a3e813412dc226",
        "0002_ops_views.sql": "26d7cd65824cf71296352039d40dcd88bd89c430780207dacae012b2dd634a3b",
        "0003_record_grant.sql": "13c1e5e85e768826adc4e18161c601dd2980a7536e8e0767e7f20e1fad1c9381",
        "0004_failures_view_indexes.sql": "ce5e1496b0446ab4eb577ebf0c75af708ec13cfee992e2598214bf2550cc1a2a",
        "0005_bounded_answers.sql": "a5e8cee2bd4634c9fce2ef4e8ec6e676d0d788e702a1bffb491053b55b28f654",
        "0006_receipt_storage_external.sql": "7d2547ab19b18a3050562b687aa0a9a1218ed0fd282b73b2a663af9eba03d660",
        "0007_redrive.sql": "0c7510b059528a568eda4f55130761dc95a7cd1b5127f5ef25607693e45ea42c",
        "0008_verdict_policy.sql": "d5efb89340a68e6d63f66ca1b29804694039bda062a86a3620855eb7154ee8e1",
        "0009_events.sql": "fd6d8a4411dfe52241180900201d21ff9888aa87656c75b502ac27c378520d42",
        "0010_app_store_server_api.sql": "e4c412c35452cc4660118e2dd3d79a887189b2a87a4412b842d96c3ac8ca5294",
        "0011_roles_and_health.sql": "123fe93efe721622f85113f181d1c1f381aca2270f434a2094c746dec7516a10",
        "0012_transactions.sql": "0b1b05eac63279a6346e4f7a4b5af87a0d9665ba966f9a8c5bf2cf5ca6fd4797",
        "0013_notifications.sql": "3c4d838551633c552533e75bb9a72e490c5525b83e8b69958cb62f788bd72530",
        "0014_ledger_lookup_by_index.sql": "72e1f5b710b9dfd86e4c8ed782eabd4544b3d38d7bd57d71f4bc07141307dda0",
        "0015_ownership.sql": "ac1b45c779a046514654af1eb8a2e7219343bcb18e3ae8a130201fdf66956043",
        "0016_notifications_kept.sql": "820cb0d6665f8039eed79f9188d2b61c6e53d450e2328b90d45d4131b08053e8",
        "0017_test_roots_marked.sql": "6022e31dbe0ed6c97a1933be7b526788b40d0f0e63f27b4a48f7c8f4269f3866",
        "0020_subscription_model.sql": "2254e7b7f3661834b3fff340e23a52607c65be5b97a775ae63a020491250771c",
        "0021_repeatables_readable.sql": "084addddaadcea230850ae1eddc50faf4f76fe56d0e6da76bfc0a88174f6f277",
        "0022_trusted_claim_tokens.sql": "615cce1c2a19c647c51e851e148f88533a1bba3e78b609d71cfb1b886d31fdf8",
        "0023_request_ids.sql": "3657a533b1b7b9835403469b65760931025309ab7d88a64eaf60456f7258442d",
        "0024_support_and_fleet_control.sql": "d0f6aff7f06f8695fda07988424b5a85450faeba9f12eb835ba1497ff4e695fd",
        "0026_history_syncs.sql": "706b4a59716e6e00ea3455416ad3c7e74be65fd4f42b78c991ea135494df7c9c",
        "0027_subscription_reconciliation.sql": "f4d7d0fd80f5efc4c137679f7aeef9bbd008c722c64d8f9f695e391d6095bd16",
        "0028_history_sync_ownership_and_refunds.sql": "331cff36a0a41e4211ab3b5d13349c5b39fa612f544c54ae5c4628e58183b270",
        "0029_submission_fact_sources.sql": "d56ae3ae3f76b0807d85149096d3a5c38823a264a1df768681a830ab9a26570d",
        "0030_prune_subscription_corrections.sql": "ec76f09c2ef41c8eb93d2c609be5552e7a1cab0d1b1d0263f9d00715d860aa8a",
        "0031_retries_claimed_first.sql": "0aea3f38b37d6dbb4a53eea0943a2f9ca44d91e96a011b7c48bc98c0fabcdeee",
        "0032_drop_jobs_purchase_key_fkey.sql": "dd5bfbdf5f5ec60a0acf61ed6900931d7d38707e37e2ac11c23229fdf480076d",
        "0033_receipt_submissions.sql": "7d916c0d401f6728f9a81d63bd1954a40a3397d8bb92c71c3581d35703774829",
        "0034_transaction_submissions.sql": "feea5459dc58da6053cba2436a25cb463395a45ed4fdc84ddfa91834a76378a5",
        "0035_purchase_owners.sql": "87b211b9f4c8eecf3e58c33a3a4b21dbca568206970f571638a4edf630ea71ed",
        "0036_support_rate_budget.sql": "884f9d0528271a7961c257bfce33cb307f7a0d53aa51e1fc606bef49fdbcc4c1",
        "0037_app_transactions.sql": "7dd0f00865b33c04e6b6565840b68728945dbe6c4f254759625407353fcd4d75",
        "0038_trace_parents.sql": "d37b73775c0a53c654eb7b9943243a70e1acb7422329a905830b51c324b07a58",
        "0039_delivery_heads.sql": "27e0ab4f33ab2f9c494c2f7d56d49bc2e1756ef4bd3ada1e8d01a7039bbf4527",
        "0040_call_minutes.sql": "b3193b5972ced255f771b6047b396fe7385c84c397542c4331ce17c04a39884a",
        "0041_events_by_job.sql": "66fe80141e8efad9eef7e54100de54f65407f939e12ee2540fb2f9d398dc832a",
    ]

    @Test func everyMigrationIsPinnedAndUnchanged() async throws {
        let migrations = try Migration.load(from: ScratchDatabase.migrationsDirectory()).filter { $0.kind == .versioned }
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        var changed: [String] = [], unpinned: [String] = []
        for migration in migrations {
            let checksum: String = try await pool.query("SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex') AS c", [migration.sql])[0].decode("c")
            guard let pinned = Self.landed[migration.name] else {
                unpinned.append("\"\(migration.name)\": \"\(checksum)\",")
                continue
            }
            if pinned != checksum { changed.append(migration.name) }
        }
        pool.shutdown()
        await database.drop()
        #expect(changed.isEmpty, "landed migrations changed: \(changed) — restore them and add a new migration instead")
        #expect(unpinned.isEmpty, "pin each new migration when it lands, in LandedMigrationTests.landed: \(unpinned.joined(separator: " "))")
        #expect(Set(Self.landed.keys).subtracting(migrations.map(\.name)).isEmpty, "a landed migration was removed or renamed")
    }
}
