import Support

/// Asks the event loop running one daemon for a run after one of its connections is resumed
/// (libmicrohttpd's external daemons have no inter-thread channel of their own).
///
/// It exists before the daemon's loop attachment does (the loop may run the daemon, and so
/// accept and resume connections, before `attach` returns): a request made before the
/// attachment is known is passed on as soon as it is.
final class LoopWaker: Sendable {
    private struct State {
        var requestRun: (@Sendable () -> Void)?
        var missed = false
    }

    private let state = Locked(State())

    /// Asks for a run (any thread).
    func wake() {
        let requestRun = state.withLock { state -> (@Sendable () -> Void)? in
            if state.requestRun == nil { state.missed = true }
            return state.requestRun
        }
        requestRun?()
    }

    /// Sets the loop's request function, passing on a request made before.
    func connect(_ requestRun: @escaping @Sendable () -> Void) {
        let missed = state.withLock { state -> Bool in
            state.requestRun = requestRun
            defer { state.missed = false }
            return state.missed
        }
        if missed { requestRun() }
    }
}
