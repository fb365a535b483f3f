// Scheduler hints for server threads (owned by HTTPServer). glibc 2.36 declares no
// wrapper for sched_getattr/sched_setattr, so they are called through syscall(2).
#ifndef CPAYQL_SCHED_H
#define CPAYQL_SCHED_H
#include <stdint.h>

/// Asks the kernel to give the calling thread scheduling slices of `nanoseconds`
/// (`sched_attr.sched_runtime` for a normal-policy thread: EEVDF's custom slice,
/// Linux 6.12 and later; older kernels accept and ignore it). The thread's policy
/// and nice value are kept. Done once per thread: later calls return at once.
/// Returns 0 on success (or when already done), -1 with errno set when the kernel
/// refused; the thread then keeps the default slice.
int cpayql_request_thread_slice(uint64_t nanoseconds);

/// The calling thread's current slice in nanoseconds as the kernel reports it
/// (0 when it reports none), or -1 with errno set. For tests.
int64_t cpayql_thread_slice(void);
#endif
