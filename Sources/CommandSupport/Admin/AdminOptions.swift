import ArgumentParser

/// `--admin-host` / `--admin-port` (or `RECEIPTQ_ADMIN_HOST` / `RECEIPTQ_ADMIN_PORT`): where the
/// process serves `/metrics`, `/healthz` and `/readyz` (`AdminServer`). Each command passes its
/// own default port; the host defaults to loopback.
public struct AdminOptions: ParsableArguments, Sendable {
    @Option(help: "Address of the admin listener (/metrics, /healthz, /readyz). Default: 127.0.0.1.")
    public var adminHost: String?

    @Option(help: "Port of the admin listener (0: off). Default: 8081 for api, 0 for worker and scheduler.")
    public var adminPort: Int?

    public init() {}

    /// The flags, then the environment, then `AdminConfiguration`'s host and `defaultPort`;
    /// validated. `legacyPort` is an older spelling the command still accepts (flag, then variable).
    public func configuration(defaultPort: Int, legacyPort: Int? = nil, legacyPortVariable: String? = nil,
                              environment: EnvironmentReader = EnvironmentReader()) throws -> AdminConfiguration {
        var settings = AdminConfiguration(port: defaultPort)
        settings.host = adminHost ?? environment.string("RECEIPTQ_ADMIN_HOST") ?? settings.host
        let legacy = try legacyPort ?? legacyPortVariable.flatMap { try environment.int($0, in: 0...65_535) }
        settings.port = try adminPort ?? environment.int("RECEIPTQ_ADMIN_PORT", in: 0...65_535) ?? legacy ?? settings.port
        try settings.validate()
        return settings
    }
}
