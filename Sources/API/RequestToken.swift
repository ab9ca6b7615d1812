/// The configured token a request authenticated with (its index in `TokenDigests`), for what is
/// budgeted per token beyond the rate limit (long-polls). Set by `BearerAuthMiddleware` around the
/// routes it guards; nil outside them.
enum RequestToken {
    @TaskLocal static var index: Int?
}
