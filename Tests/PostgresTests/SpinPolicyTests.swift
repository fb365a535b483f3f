@testable import Postgres
import Testing

/// The I/O loop's choice between polling briefly and sleeping at once, fed with waits.
@Suite struct SpinPolicyTests {
    /// Feeds `turns` waits: `spinning` µs while the policy spins, `sleeping` µs otherwise.
    private func feed(_ policy: inout SpinPolicy, turns: Int, spinning: Double, sleeping: Double) -> (spun: Int, slept: Int) {
        var spun = 0, slept = 0
        for _ in 0..<turns {
            if policy.spins { spun += 1 } else { slept += 1 }
            policy.record(.nanoseconds(Int64((policy.spins ? spinning : sleeping) * 1000)))
        }
        return (spun, slept)
    }

    @Test func keepsPollingWhileItPaysAndTriesSleepingNowAndThen() {
        var policy = SpinPolicy()
        #expect(policy.spins, "starts by polling")
        let (spun, slept) = feed(&policy, turns: 10 * (SpinPolicy.stayTurns + SpinPolicy.probeTurns), spinning: 20, sleeping: 90)
        #expect(policy.spins)
        // Every stay is followed by one probe of sleeping, and no more.
        #expect(slept == 10 * SpinPolicy.probeTurns && spun == 10 * SpinPolicy.stayTurns)
    }

    @Test func sleepsWhenSleepingAnswersSooner() {
        var policy = SpinPolicy()
        _ = feed(&policy, turns: SpinPolicy.stayTurns + SpinPolicy.probeTurns, spinning: 40, sleeping: 15)
        #expect(!policy.spins, "after one probe of sleeping, it keeps sleeping")
        let (spun, slept) = feed(&policy, turns: 4 * (SpinPolicy.stayTurns + SpinPolicy.probeTurns), spinning: 40, sleeping: 15)
        #expect(spun == 4 * SpinPolicy.probeTurns && slept == 4 * SpinPolicy.stayTurns)
    }

    @Test func followsTheMachineWhenItChanges() {
        var policy = SpinPolicy()
        _ = feed(&policy, turns: 2 * (SpinPolicy.stayTurns + SpinPolicy.probeTurns), spinning: 40, sleeping: 15)
        #expect(!policy.spins)
        // Wake-ups become slow: sleeping now costs more than polling; the next probe finds out.
        _ = feed(&policy, turns: 2 * (SpinPolicy.stayTurns + SpinPolicy.probeTurns), spinning: 25, sleeping: 300)
        #expect(policy.spins)
        #expect(policy.averages[0] > policy.averages[1])
    }
}
