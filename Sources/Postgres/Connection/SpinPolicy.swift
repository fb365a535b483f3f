/// Whether the I/O loop, after running tasks that prefer it, polls for their
/// results for a short while (`PostgresEventLoop.spinBeforeSleeping`) or
/// sleeps at once — chosen by measuring both.
///
/// Neither wins everywhere (measured at one client, `Benchmarks/postgres/README.md`):
/// polling saves a sleep and a wake-up when the server's backend runs on the
/// other core, but it keeps this thread's core busy, so the backend cannot
/// take turns with it on one core — which, when the scheduler allows it, is
/// the fastest way of all (no idle core to wake). So the loop measures, for
/// every turn that sent statements, the time until the first result is
/// noticed, keeps a moving average per mode, stays in the better mode, and
/// every `stayTurns` turns tries the other one for `probeTurns` turns (the
/// machine's state changes from one second to the next).
///
/// A plain value, used by the loop thread only.
struct SpinPolicy {
    /// Turns spent in the better mode before trying the other.
    static let stayTurns = 512
    /// Turns spent trying the other mode.
    static let probeTurns = 32

    /// The mode now: poll briefly before sleeping (true) or sleep at once.
    private(set) var spins = true
    /// Moving averages of the wait for a result, in microseconds: [sleeping, spinning].
    private(set) var averages: [Double] = [0, 0]
    private var measured = [false, false]
    private var turns = 0
    private var probing = false

    /// A turn in the current mode waited `elapsed` from sending to noticing a result.
    mutating func record(_ elapsed: Duration) {
        let (seconds, attoseconds) = elapsed.components
        let micros = Double(seconds) * 1e6 + Double(attoseconds) / 1e12
        let mode = spins ? 1 : 0
        // An average over about the last eight turns: quick to follow the machine, yet not one sample.
        averages[mode] = measured[mode] ? averages[mode] + (micros - averages[mode]) / 8 : micros
        measured[mode] = true
        turns += 1
        if probing {
            guard turns >= Self.probeTurns else { return }
            probing = false
            spins = averages[1] <= averages[0]
        } else {
            guard turns >= Self.stayTurns else { return }
            probing = true
            spins.toggle()
        }
        turns = 0
    }
}
