/// The configured token a request authenticated with (its index in `TokenDigests`), for what is
/// budgeted per token beyond the rate limit (long-polls), and the token itself, which a trusted
/// transaction-id claim hands to the database as its proof (`ClaimProof`). Set by
/// `BearerAuthMiddleware` around the routes it guards; nil outside them. Never logged.
enum RequestToken {
    @TaskLocal static var index: Int?
    @TaskLocal static var token: Substring?
}
