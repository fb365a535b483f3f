@testable import Gateway
import PaymentsCore
import Providers
import Support
import Testing

/// Provider health and its circuit breaker, without I/O: a clock the test moves, calls recorded by hand.
@Suite struct ProviderHealthTests {
    /// A clock that only moves when told.
    final class ManualClock: Sendable {
        private let instant = Locked(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
    }

    private static func health(_ clock: ManualClock) -> ProviderHealth {
        ProviderHealth(window: 10, horizon: .seconds(300), cooldown: .seconds(30), now: { clock.now })
    }

    private static func call(_ health: ProviderHealth, _ failure: ProviderError.Code?, provider: ProviderName = .razorpay) {
        health.record(ProviderCall(provider: provider, operation: "createOrder", duration: .milliseconds(20), failure: failure))
    }

    @Test func aFailingProviderOpensItsCircuitAndOneTrialIsLetThroughAfterTheCooldown() {
        let clock = ManualClock()
        let health = Self.health(clock)
        #expect(health.snapshot(.razorpay).status == "UNKNOWN")
        Self.call(health, .providerUnavailable)
        #expect(health.snapshot(.razorpay).status == "DOWN")
        #expect(health.snapshot(.razorpay).circuitOpen)
        #expect(health.routingHealth(.razorpay, claimingTrial: true) == "DOWN")

        clock.advance(.seconds(31))
        // Half-open: shown as DOWN but no longer open; explain does not take the trial.
        #expect(health.snapshot(.razorpay).status == "DOWN")
        #expect(!health.snapshot(.razorpay).circuitOpen)
        #expect(health.routingHealth(.razorpay, claimingTrial: false) == "DOWN")
        #expect(!health.snapshot(.razorpay).circuitOpen)
        // The first create claims the trial; every other one sees DOWN while it runs.
        #expect(health.routingHealth(.razorpay, claimingTrial: true) == "DEGRADED")
        #expect(health.snapshot(.razorpay).circuitOpen)
        #expect(health.routingHealth(.razorpay, claimingTrial: true) == "DOWN")

        // The trial fails: open again for a whole cooldown.
        Self.call(health, .timeout)
        clock.advance(.seconds(29))
        #expect(health.routingHealth(.razorpay, claimingTrial: true) == "DOWN")
        clock.advance(.seconds(2))
        #expect(health.routingHealth(.razorpay, claimingTrial: true) == "DEGRADED")

        // The next trial succeeds: the circuit closes and every request may use it.
        Self.call(health, nil)
        let recovered = health.snapshot(.razorpay)
        #expect(recovered.status == "DEGRADED")
        #expect(!recovered.circuitOpen)
        #expect(health.routingHealth(.razorpay, claimingTrial: true) == "DEGRADED")
        #expect(health.routingHealth(.razorpay, claimingTrial: true) == "DEGRADED")
        // Other providers are untouched.
        #expect(health.snapshot(.cashfree).status == "UNKNOWN")
    }

    @Test func aTrialThatNeverCallsTheProviderExpiresAfterACooldown() {
        let clock = ManualClock()
        let health = Self.health(clock)
        Self.call(health, .unreachable)
        clock.advance(.seconds(31))
        #expect(health.routingHealth(.razorpay, claimingTrial: true) == "DEGRADED")
        // The create went elsewhere (the trial was not used): after another cooldown a new trial may start.
        clock.advance(.seconds(15))
        #expect(health.routingHealth(.razorpay, claimingTrial: true) == "DOWN")
        clock.advance(.seconds(16))
        #expect(health.routingHealth(.razorpay, claimingTrial: true) == "DEGRADED")
    }

    @Test func callsOlderThanTheHorizonNoLongerCount() {
        let clock = ManualClock()
        let health = Self.health(clock)
        Self.call(health, .providerUnavailable)
        Self.call(health, .providerUnavailable)
        clock.advance(.seconds(200))
        Self.call(health, nil)
        #expect(health.snapshot(.razorpay).successRate == 0.333)
        clock.advance(.seconds(101))
        // Only the success is inside the last 5 minutes.
        #expect(health.snapshot(.razorpay).status == "UP")
        #expect(health.snapshot(.razorpay).successRate == 1)
        clock.advance(.seconds(200))
        #expect(health.snapshot(.razorpay).status == "UNKNOWN")
        #expect(!health.snapshot(.razorpay).circuitOpen)
    }

    @Test func refusalsAreTheCallersAndDoNotOpenTheCircuit() {
        let clock = ManualClock()
        let health = Self.health(clock)
        Self.call(health, .invalidRequest)
        Self.call(health, .invalidRequest)
        #expect(health.snapshot(.razorpay).status == "UP")
        #expect(!health.snapshot(.razorpay).circuitOpen)
    }
}
