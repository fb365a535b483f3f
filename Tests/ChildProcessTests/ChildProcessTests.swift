import ChildProcess
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `ChildProcess`: what the child gets (streams, descriptors, signals) and what comes back.
@Suite struct ChildProcessTests {
    @Test func exitStatusAndOutputsComeBack() throws {
        let run = try ChildProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(run.status == 3)
        #expect(run.outputText == "out\n")
        #expect(run.errorsText == "err\n")
    }

    @Test func mergedErrorsArriveInOutput() throws {
        let run = try ChildProcess.run("/bin/sh", ["-c", "echo one; echo two >&2"], mergeErrors: true)
        #expect(run.outputText == "one\ntwo\n")
        #expect(run.errors.isEmpty)
    }

    @Test func aSignalEndingTheChildIsReportedAs128PlusIt() throws {
        let run = try ChildProcess.run("/bin/sh", ["-c", "kill -TERM $$"])
        #expect(run.status == 128 + SIGTERM)
    }

    /// More than a pipe's buffer each way at once: input, output and errors are
    /// polled together, so none of them can stall the others.
    @Test func largeStreamsInEveryDirectionDoNotDeadlock() throws {
        let input = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        let run = try ChildProcess.run("/bin/sh", ["-c", "head -c 300000 /dev/zero >&2; cat"], input: input)
        #expect(run.status == 0)
        #expect(run.output == input)
        #expect(run.errors.count == 300_000)
    }

    @Test func theEnvironmentIsExactlyTheOneGiven() throws {
        let run = try ChildProcess.run("/usr/bin/env", [], environment: ["ONLY": "this"])
        #expect(run.outputText == "ONLY=this\n")
    }

    @Test func aMissingExecutableIsAnError() {
        #expect(throws: ChildProcessError.self) {
            _ = try ChildProcess(executable: "/nonexistent/payql-no-such-tool", arguments: [])
        }
    }

    /// The reason this type exists: with thousands of descriptors open (a
    /// server holding connections), spawning still works, and the child sees
    /// only its three standard streams, none of ours.
    @Test func manyOpenDescriptorsAreNotInherited() throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let wanted = min(Int(limit.rlim_cur) - 64, 3000)
        try #require(wanted > 100, "RLIMIT_NOFILE too low to open many descriptors")
        var opened: [Int32] = []
        defer { opened.forEach { close($0) } }
        for _ in 0..<wanted {
            let descriptor = open("/dev/null", O_RDONLY) // no O_CLOEXEC on purpose
            guard descriptor >= 0 else { break }
            opened.append(descriptor)
        }
        #expect(opened.count > 100)
        // `ls` opens the directory itself: that one descriptor is the child's own.
        let run = try ChildProcess.run("/bin/sh", ["-c", "ls /proc/self/fd | wc -l"])
        #expect(run.status == 0)
        let listed = Int(run.outputText.filter(\.isNumber)) ?? -1
        #expect(listed <= 4, "the child saw \(listed) descriptors")
    }

    @Test func aLongRunningChildReadsInputUntilItIsClosed() throws {
        let child = try ChildProcess(executable: "/bin/cat", arguments: [], standardInput: .pipe, standardOutput: .pipe)
        try child.write(Array("first line\nrest".utf8))
        let output = try #require(child.output)
        #expect(ChildProcess.readLine(from: output) == "first line")
        child.closeInput()
        #expect(ChildProcess.readLine(from: output) == "rest")
        #expect(ChildProcess.readLine(from: output) == nil)
        child.closeOutputs()
        #expect(child.waitForExit() == 0)
    }
}
