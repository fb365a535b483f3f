#if canImport(Glibc)
import Glibc
#endif

/// What `payql` found of its standard streams when it started.
///
/// A stream the caller closed (`payql webhook verify <&-`) leaves its number
/// free, and the next descriptor the process opens takes it: reading "standard
/// input" would then read an epoll or event descriptor of the runtime and fail
/// with EINVAL, and writing "standard output" could write into a socket. So a
/// closed stream is put back as `/dev/null` before anything else runs, and the
/// commands that read standard input are told it was closed, to say so.
struct StandardStreams {
    /// Whether descriptor 0 was closed at start (it is `/dev/null` now).
    var inputWasClosed = false

    /// Checks descriptors 0, 1 and 2 and reopens each closed one on `/dev/null`.
    /// Call first thing in `main`, before any descriptor is opened.
    static func secure() -> StandardStreams {
        var streams = StandardStreams()
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) < 0 && errno == EBADF {
            if descriptor == 0 { streams.inputWasClosed = true }
            // open returns the lowest free descriptor: this one, as 0...descriptor-1 are open by now.
            let opened = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
            if opened >= 0, opened != descriptor {
                _ = dup2(opened, descriptor)
                _ = close(opened)
            }
        }
        return streams
    }
}
