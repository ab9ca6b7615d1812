import Foundation
import HTTPClient
import Synchronization

/// Sends App Store Server Notifications V2 as Apple does — `POST {"signedPayload": JWS}` with
/// our libcurl client — and keeps every notification with its attempts. A notification that is
/// not answered 2xx is tried again on `FakeNotificationSchedule`. Nothing here logs the payload.
public final class FakeNotifications: Sendable {
    private struct State {
        var notifications: [FakeSentNotification] = []
        var tasks: [String: Task<Void, Never>] = [:]
        var stopped = false
    }

    private let state = Mutex(State())
    private let http = Mutex<HTTPClient?>(nil)
    private let configuration: FakeServerAPIConfiguration
    private let now: @Sendable () -> Date

    init(configuration: FakeServerAPIConfiguration, now: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        self.now = now
    }

    /// Every notification made so far, oldest first.
    public func all() -> [FakeSentNotification] {
        state.withLock { $0.notifications }
    }

    /// Records `notification` and, when its environment has a URL, starts delivering it.
    func submit(_ notification: FakeSentNotification) {
        var notification = notification
        guard let url = configuration.notificationURL(for: notification.environment) else {
            notification.finished = true
            state.withLock { $0.notifications.append(notification) }
            return
        }
        let id = notification.notificationUUID
        let environment = notification.environment
        let body = Self.body(notification.signedPayload)
        let stopped = state.withLock { state in
            state.notifications.append(notification)
            return state.stopped
        }
        guard !stopped else { return }
        let task: Task<Void, Never> = Task { [weak self] in _ = await self?.deliver(id, body: body, to: url, environment: environment) }
        // A task that already finished leaves a stale entry; `stop()` awaits it at once.
        state.withLock { $0.tasks[id] = task }
    }

    /// Cancels pending retries and closes the HTTP client.
    func stop() async {
        let tasks = state.withLock { state in
            state.stopped = true
            defer { state.tasks.removeAll() }
            return Array(state.tasks.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        let client = http.withLock { client in
            defer { client = nil }
            return client
        }
        await client?.shutdown()
    }

    private func deliver(_ id: String, body: [UInt8], to url: String, environment: FakeEnvironment) async {
        var attempts = 0
        while !Task.isCancelled {
            attempts += 1
            let attemptDate = FakePurchases.milliseconds(now())
            let result = await post(body, to: url)
            let delay = result == "SUCCESS" ? nil : FakeNotificationSchedule.delay(
                afterAttempts: attempts, environment: environment,
                compression: configuration.notificationRetryCompression, retrySandbox: configuration.retrySandboxNotifications)
            update(id) { notification in
                notification.attempts.append(FakeSendAttempt(attemptDate: attemptDate, sendAttemptResult: result))
                notification.delivered = result == "SUCCESS"
                notification.finished = delay == nil
            }
            guard let delay else { break }
            try? await Task.sleep(for: delay)
        }
        _ = state.withLock { $0.tasks.removeValue(forKey: id) }
    }

    private func post(_ body: [UInt8], to url: String) async -> String {
        let client = http.withLock { client in
            if client == nil { client = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 64, maxIdleConnections: 64)) }
            return client!
        }
        do {
            let response = try await client.post(url: url, headers: ["Content-Type": "application/json"], body: body,
                                                 timeout: configuration.notificationTimeout)
            return (200...206).contains(response.status) ? "SUCCESS" : "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
        } catch let error as HTTPClientError {
            switch error {
            case .timeout: return "TIMED_OUT"
            case .tls: return "TLS_ISSUE"
            case .connectFailed: return "SOCKET_ISSUE"
            case .responseTooLarge: return "INVALID_RESPONSE"
            case .transport: return "NO_RESPONSE"
            case .invalidURL, .shutdown: return "OTHER"
            }
        } catch {
            return "OTHER"
        }
    }

    private func update(_ id: String, _ change: (inout FakeSentNotification) -> Void) {
        state.withLock { state in
            guard let index = state.notifications.lastIndex(where: { $0.notificationUUID == id }) else { return }
            change(&state.notifications[index])
        }
    }

    static func body(_ signedPayload: String) -> [UInt8] {
        Array(#"{"signedPayload":""#.utf8) + Array(signedPayload.utf8) + Array(#""}"#.utf8)
    }
}
