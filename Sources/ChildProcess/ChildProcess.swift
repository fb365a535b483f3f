#if canImport(Glibc)
import Glibc
#endif
internal import CSpawn

/// A child process started with `posix_spawn`.
///
/// Why not Foundation's `Process`: swift-corelibs-foundation's `Process.run()`
/// lists `/proc/self/fd` to close inherited descriptors and copies each entry
/// with a fixed 256-byte `memcpy`, reading past the end of its directory buffer
/// (AddressSanitizer: heap-buffer-overflow in `findMaximumOpenFromProcSelfFD`).
/// With enough descriptors open (a server holding a thousand connections) the
/// read runs off a mapped page and the whole process dies with SIGSEGV.
///
/// Here the child gets exactly the descriptors asked for: standard streams
/// from `/dev/null`, a pipe or a file, every other descriptor closed
/// (`posix_spawn_file_actions_addclosefrom_np`), a cleared signal mask and
/// default signal handlers (Swift's and Dispatch's threads block signals, and a
/// child inherits the mask of the thread that spawned it).
package struct ChildProcess: Sendable {
    /// Where the child's standard input comes from.
    package enum Input: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe whose write end is `input`.
        case pipe
    }

    /// Where the child's standard output or error goes.
    package enum Output: Sendable, Equatable {
        /// `/dev/null`.
        case null
        /// A pipe whose read end is `output` (or `errors`).
        case pipe
        /// A file, created or truncated, readable by its owner only.
        case file(String)
        /// Standard error only: the same place as standard output.
        case standardOutput
    }

    /// The child's process id.
    package let pid: Int32
    /// The write end of the child's standard input, when it is `.pipe`; close it with `closeInput()`.
    package let input: Int32?
    /// The read end of the child's standard output, when it is `.pipe`.
    package let output: Int32?
    /// The read end of the child's standard error, when it is `.pipe`.
    package let errors: Int32?

    /// Starts `executable` (an absolute path) with `arguments` (without argv[0]).
    ///
    /// - Parameter environment: the child's whole environment; `nil` passes this process's own.
    package init(
        executable: String, arguments: [String], environment: [String: String]? = nil,
        standardInput: Input = .null, standardOutput: Output = .null, standardError: Output = .null
    ) throws(ChildProcessError) {
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        func closeAll() {
            for descriptor in parentEnds + childEnds { close(descriptor) }
        }
        func makePipe() throws(ChildProcessError) -> (read: Int32, write: Int32) {
            var ends: [Int32] = [-1, -1]
            guard cpayql_pipe_cloexec(&ends) == 0 else {
                let failure = ChildProcessError.system("pipe2", errno, executable: executable)
                closeAll()
                throw failure
            }
            return (ends[0], ends[1])
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }

        var inputEnd: Int32?
        switch standardInput {
        case .null:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .pipe:
            let ends = try makePipe()
            parentEnds.append(ends.write)
            childEnds.append(ends.read)
            inputEnd = ends.write
            posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
        }
        func route(_ output: Output, to target: Int32) throws(ChildProcessError) -> Int32? {
            switch output {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .standardOutput:
                posix_spawn_file_actions_adddup2(&actions, 1, target)
            case .pipe:
                let ends = try makePipe()
                parentEnds.append(ends.read)
                childEnds.append(ends.write)
                posix_spawn_file_actions_adddup2(&actions, ends.write, target)
                return ends.read
            }
            return nil
        }
        let outputEnd = try route(standardOutput == .standardOutput ? Output.null : standardOutput, to: 1)
        let errorsEnd = try route(standardError, to: 2)
        // After the dup2s: nothing but 0, 1 and 2 reaches the child.
        let closeFromResult = cpayql_spawn_add_close_from(&actions, 3)
        guard closeFromResult == 0 else {
            closeAll()
            throw ChildProcessError.system("posix_spawn_file_actions_addclosefrom_np", closeFromResult, executable: executable)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptySet = sigset_t()
        sigemptyset(&emptySet)
        var defaultSet = sigset_t()
        sigfillset(&defaultSet)
        sigdelset(&defaultSet, SIGKILL)
        sigdelset(&defaultSet, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &emptySet)
        posix_spawnattr_setsigdefault(&attributes, &defaultSet)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environmentStrings = environment.map { $0.map { "\($0.key)=\($0.value)" } }
        var pid: pid_t = 0
        let status = withCStringArray([executable] + arguments) { argv in
            if let environmentStrings {
                return withCStringArray(environmentStrings) { posix_spawn(&pid, executable, &actions, &attributes, argv, $0) }
            }
            return posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        for descriptor in childEnds { close(descriptor) }
        childEnds = []
        guard status == 0 else {
            closeAll()
            throw ChildProcessError.system("posix_spawn", status, executable: executable)
        }
        self.pid = pid
        self.input = inputEnd
        self.output = outputEnd
        self.errors = errorsEnd
    }

    /// Blocks the calling thread until the child exits; its exit status, or 128 + the signal that ended it.
    /// Call once (the process is reaped).
    package func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        // WIFEXITED/WEXITSTATUS are macros: it exited normally when the low 7 bits are 0.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Sends `signal` (SIGTERM by default) to the child.
    package func terminate(signal: Int32 = SIGTERM) {
        kill(pid, signal)
    }

    /// Closes the write end of the child's standard input (the child then reads end-of-file). Call at most once.
    package func closeInput() {
        if let input { close(input) }
    }

    /// Closes the parent's ends of the output pipes. Call at most once, when done reading.
    package func closeOutputs() {
        if let output { close(output) }
        if let errors { close(errors) }
    }

    /// Writes all of `bytes` to the child's standard input (blocking).
    package func write(_ bytes: [UInt8]) throws(ChildProcessError) {
        guard let input else { return }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(input, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ChildProcessError.system("write", errno, executable: "child \(pid)")
            }
            offset += written
        }
    }

    /// Reads `descriptor` up to the first newline (not included) or end-of-file; nil at end-of-file with nothing read.
    package static func readLine(from descriptor: Int32) -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// What `run` collected.
    package struct Completion: Sendable {
        /// Exit status, or 128 + the signal that ended the child.
        package var status: Int32
        /// Everything the child wrote to standard output (and to standard error when they were merged).
        package var output: [UInt8]
        /// Everything the child wrote to standard error (empty when merged into `output`).
        package var errors: [UInt8]
        /// `output` as UTF-8 text.
        package var outputText: String { String(decoding: output, as: UTF8.self) }
        /// `errors` as UTF-8 text.
        package var errorsText: String { String(decoding: errors, as: UTF8.self) }
    }

    /// Runs `executable` to completion, feeding it `input` and collecting both output streams
    /// (polled together, so neither a large input nor a chatty standard error can deadlock it).
    /// Blocks the calling thread: call it off Swift's cooperative pool when the child may run long.
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        input: [UInt8] = [], mergeErrors: Bool = false
    ) throws(ChildProcessError) -> Completion {
        let child = try ChildProcess(
            executable: executable, arguments: arguments, environment: environment,
            standardInput: .pipe, standardOutput: .pipe, standardError: mergeErrors ? .standardOutput : .pipe)
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var written = 0
        var inputOpen = true
        if let descriptor = child.input {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            if input.isEmpty {
                close(descriptor)
                inputOpen = false
            }
        }
        var outputOpen = child.output != nil
        var errorsOpen = child.errors != nil
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while inputOpen || outputOpen || errorsOpen {
            var watched: [pollfd] = []
            if inputOpen, let descriptor = child.input { watched.append(pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)) }
            if outputOpen, let descriptor = child.output { watched.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
            if errorsOpen, let descriptor = child.errors { watched.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
            if poll(&watched, nfds_t(watched.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for entry in watched where entry.revents != 0 {
                if entry.fd == child.input {
                    let count = input.withUnsafeBytes { Glibc.write(entry.fd, $0.baseAddress.map { $0 + written }, $0.count - written) }
                    if count > 0 { written += count }
                    if written == input.count || (count < 0 && errno != EAGAIN && errno != EINTR) {
                        close(entry.fd)
                        inputOpen = false
                    }
                    continue
                }
                let count = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                if count <= 0 {
                    close(entry.fd)
                    if entry.fd == child.output { outputOpen = false } else { errorsOpen = false }
                } else if entry.fd == child.output {
                    output += chunk[0..<count]
                } else {
                    errors += chunk[0..<count]
                }
            }
        }
        return Completion(status: child.waitForExit(), output: output, errors: errors)
    }
}

/// Why a child process could not be started or fed.
package struct ChildProcessError: Error, CustomStringConvertible {
    /// What failed, with the system's reason.
    package let description: String

    static func system(_ call: String, _ code: Int32, executable: String) -> ChildProcessError {
        ChildProcessError(description: "\(call) for \(executable): \(String(cString: strerror(code)))")
    }
}

/// Calls `body` with a NULL-terminated array of C strings, as `posix_spawn` takes them.
private func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    pointers.append(nil)
    return pointers.withUnsafeBufferPointer { buffer in
        // Never empty (the terminating nil was just appended), so it has a base address; checked all the same.
        guard let base = buffer.baseAddress else { preconditionFailure("a non-empty array has storage") }
        return body(base)
    }
}
