/// Where a process serves `/metrics`, `/healthz` and `/readyz`: a listener of its own, apart
/// from the API's public port, on loopback by default — metrics name internals, and probes and
/// scrapers run on the machine or inside the pod's network.
public struct AdminConfiguration: Sendable, Equatable {
    /// Address to listen on. Default: `127.0.0.1` (containers: `0.0.0.0`, reached by the kubelet
    /// and Prometheus inside the cluster, never published).
    public var host: String
    /// Port; 0 switches the listener off. Default: 0 (the API command defaults to 8081).
    public var port: Int

    public init(host: String = "127.0.0.1", port: Int = 0) {
        self.host = host
        self.port = port
    }

    public var isEnabled: Bool { port > 0 }

    /// The port's range; the message names the flag.
    public func validate() throws(ConfigurationError) {
        guard (0...65_535).contains(port) else { throw ConfigurationError("--admin-port must be 0…65535 (0: off)") }
        guard !host.isEmpty else { throw ConfigurationError("--admin-host must not be empty") }
    }
}
