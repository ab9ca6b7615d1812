/// Where and how the support listener (admin API and console) serves. Off by default: it runs
/// only under `receiptq support serve`, with credentials of its own.
public struct SupportServerConfiguration: Sendable {
    /// Address to listen on. Default: `127.0.0.1` (put it behind your VPN or an authenticating
    /// proxy; it speaks plain HTTP).
    public var host: String
    /// Port. Default: 8090 (0: a free port, for tests).
    public var port: Int
    /// Who may log in, and as what.
    public var credentials: SupportCredentials
    /// Serve the web console under `/console` besides the admin API. Default: true.
    public var console: Bool
    /// Failed logins a minute the listener answers 401, after which further failing ones get 429
    /// with Retry-After until the allowance refills; a valid login is never refused. One budget
    /// for the whole listener (it sits behind a VPN or proxy, where client addresses mean
    /// little), so guessing an operator's token is held to this rate. Default: 20.
    public var authFailuresPerMinute: Int

    public init(host: String = "127.0.0.1", port: Int = 8090, credentials: SupportCredentials, console: Bool = true,
                authFailuresPerMinute: Int = 20) {
        self.host = host
        self.port = port
        self.credentials = credentials
        self.console = console
        self.authFailuresPerMinute = authFailuresPerMinute
    }
}
