public import Foundation

/// One lock for every child process the test bundle starts.
///
/// All test targets run in one process, and swift-corelibs-foundation's
/// `Process.run()` crashed here (a bad pointer inside its spawn set-up) when
/// two suites started children at the same moment. Starting them one at a
/// time costs nothing measurable: only the launch is serialised, not the wait.
private let launchLock = NSLock()

/// Starts `process` while no other test is starting one.
public func launchSerially(_ process: Process) throws {
    launchLock.lock()
    defer { launchLock.unlock() }
    try process.run()
}
