#if canImport(Glibc)
import Glibc
#endif
internal import CPayQLShims

/// Facts about the machine, read once.
package enum SystemInfo {
    /// Online CPU cores (at least 1).
    package static var onlineCores: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// The calling thread's scheduling slice as the kernel reports it; `nil` when it
    /// reports none (kernels before 6.12 keep no per-thread slice) or cannot tell.
    package static func currentThreadTimeSlice() -> Duration? {
        let nanoseconds = cpayql_thread_slice()
        return nanoseconds > 0 ? .nanoseconds(nanoseconds) : nil
    }

    /// The HTTP date (IMF-fixdate) of `seconds` since the Unix epoch, as responses carry it.
    package static func httpDate(secondsSinceEpoch seconds: Int64) -> String {
        var buffer = [CChar](repeating: 0, count: 30)
        cpayql_http_date(seconds, &buffer)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Seconds since the Unix epoch with nanoseconds, from the real-time clock.
    package static func wallClock() -> (seconds: Int, nanoseconds: Int) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return (spec.tv_sec, spec.tv_nsec)
    }
}

/// Closes a file descriptor the server owns.
package func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// Shuts a connection's socket down both ways: libmicrohttpd's thread then reads
/// end-of-stream and closes the connection itself (the client sees a close).
package func shutDownSocket(_ descriptor: Int32) -> Int32 { shutdown(descriptor, Int32(SHUT_RDWR)) }
