/// How PayQL waits for UPI collect requests (flow F18). Defaults in docs/api.md.
public struct UpiCollectSettings: Sendable {
    /// How long PayQL waits for a final answer before the collect is EXPIRED (a late approval is
    /// still reconciled onto the order by the reconciler).
    public var lifetime: Duration = .seconds(600)
    /// When the first status check is due after the request (the seed's SDK waits 2 s).
    public var firstCheckDelay: Duration = .seconds(2)
    /// The least time between two upstream status checks of one collect, however many readers ask.
    public var minimumCheckInterval: Duration = .seconds(3)
    /// What `UpiCollect.pollIntervalSeconds` suggests to apps (reading is cheap).
    public var clientPollIntervalSeconds: Int = 2
    /// How long one poller holds a collect (longer than a provider call's deadline); after a
    /// crash the next poller takes over when it ends.
    public var pollLease: Duration = .seconds(30)
    /// The longest a reader waits for a check another reader on this instance started; then it
    /// answers with the stored state.
    public var readerWait: Duration = .seconds(10)
    /// The most checks in flight at once on this instance (memory bound); beyond it readers get
    /// the stored state.
    public var maximumChecksInFlight: Int = 1000

    /// The defaults.
    public init() {}
}

extension Duration {
    /// Whole milliseconds (saturating), for SQL intervals.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? (seconds < 0 ? Int64.min : Int64.max) : product &+ attoseconds / 1_000_000_000_000_000
    }
}
