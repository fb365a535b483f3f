public import PaymentsCore
/// A bearer token and when it stops being usable.
struct CachedToken: Sendable {
    let value: Secret
    let expiresAt: ContinuousClock.Instant
}

/// Caches an OAuth2-style access token and refreshes it before it expires
/// (Instamojo client credentials, Setu's token). One refresh at a time: callers
/// arriving while a token is being fetched wait for that fetch instead of
/// starting their own. A failed fetch is not cached.
actor BearerTokenCache {
    typealias Fetch = @Sendable () async throws(ProviderError) -> (token: String, expiresInSeconds: Int)

    private let fetch: Fetch
    /// Refresh when less than this remains (Instamojo's SDK uses 300 s [H]).
    private let refreshMargin: Duration
    private let clock = ContinuousClock()
    private var current: CachedToken?
    private var inFlight: Task<Result<CachedToken, ProviderError>, Never>?
    /// How many tokens were fetched (for tests and metrics).
    private(set) var fetchCount = 0
    /// When the cached token will be fetched again (nil: none cached).
    var refreshAt: ContinuousClock.Instant? { current?.expiresAt }

    /// The longest a fetched token is used, whatever its `expires_in` says.
    static let maxLifetimeSeconds = 86_400

    init(refreshMargin: Duration = .seconds(300), fetch: @escaping Fetch) {
        self.refreshMargin = refreshMargin
        self.fetch = fetch
    }

    /// A token valid for at least the refresh margin (or half its lifetime, if shorter).
    func token() async throws(ProviderError) -> Secret {
        if let current, clock.now < current.expiresAt { return current.value }
        if let inFlight { return try await inFlight.value.get().value }
        let fetch = self.fetch
        let margin = refreshMargin
        let clock = self.clock
        let task = Task { () -> Result<CachedToken, ProviderError> in
            do throws(ProviderError) {
                let started = clock.now
                let (token, seconds) = try await fetch()
                // A provider's `expires_in` is trusted up to a day: a token is fetched again at least daily
                // even if an answer claims it lives for years (a refused token is also dropped at once).
                let lifetime = Duration.seconds(min(max(seconds, 0), Self.maxLifetimeSeconds))
                // Refresh `margin` early, but never use less than half the lifetime.
                let usable = lifetime > margin * 2 ? lifetime - margin : lifetime / 2
                return .success(CachedToken(value: Secret(token), expiresAt: started + usable))
            } catch {
                return .failure(error)
            }
        }
        inFlight = task
        fetchCount += 1
        let result = await task.value
        inFlight = nil
        if case .success(let token) = result { current = token }
        return try result.get().value
    }

    /// Forgets the cached token (after the provider refused it), unless a newer one already replaced `rejected`.
    func invalidate(_ rejected: Secret) {
        if current?.value == rejected { current = nil }
    }
}
