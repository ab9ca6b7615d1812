import Hummingbird
import Logging
import NIOCore
import Postgres

/// Inside `AccessLogMiddleware`: every error becomes a problem+json answer. Known errors map to
/// their status; a database that cannot be reached is 503 (nothing was stored, the caller
/// retries); anything else is logged here and answered as a bare 500 without details.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            var problem = ProblemMiddleware.problem(for: error, logger: context.logger)
            // The router's own 404 (no handler for this method and path): 405 if the path exists.
            if error is HTTPError, problem.kind == .notFound, let allow = MethodNotAllowed.allowed(path: request.uri.path) {
                problem = Problem(.methodNotAllowed, allow: allow)
            }
            response = problem.response()
        }
        return response
    }

    static func problem(for error: any Error, logger: Logger) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case is NIOTooManyBytesError:
            return Problem(.tooLarge, "the request body exceeds the configured limit")
        case let error as HTTPError where error.status == .notFound:
            return Problem(.notFound)
        case let error as HTTPError where error.status == .contentTooLarge:
            return Problem(.tooLarge)
        case let error as PostgresError where error.isConnectionFailure || error.kind == .poolClosed:
            logger.warning("database unavailable", metadata: ["error": "\(error)"])
            return Problem(.databaseUnavailable, retryAfter: 1)
        default:
            // `String(describing:)` of our errors is terse and carries no request data.
            logger.error("unhandled error", metadata: ["error": "\(String(reflecting: type(of: error))): \(error)"])
            return Problem(.internalError)
        }
    }
}
