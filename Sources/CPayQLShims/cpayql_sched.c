#define _GNU_SOURCE
#include "cpayql_sched.h"
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

// The kernel's struct sched_attr (include/uapi/linux/sched/types.h), first version
// (56 bytes: no utilization clamps).
struct cpayql_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

// 0: not tried on this thread yet; 1: tried (whatever the outcome).
static __thread int slice_requested = 0;

static int read_attributes(struct cpayql_sched_attr *attributes) {
    memset(attributes, 0, sizeof *attributes);
    return (int)syscall(SYS_sched_getattr, 0, attributes, (unsigned int)sizeof *attributes, 0U);
}

int cpayql_request_thread_slice(uint64_t nanoseconds) {
    if (slice_requested) return 0;
    slice_requested = 1;
    struct cpayql_sched_attr attributes;
    if (read_attributes(&attributes) != 0) return -1;
    // Only normal and batch threads have slices; leave real-time or idle policies alone.
    if (attributes.sched_policy != SCHED_OTHER && attributes.sched_policy != SCHED_BATCH) {
        errno = EINVAL;
        return -1;
    }
    attributes.size = (uint32_t)sizeof attributes;
    attributes.sched_flags = 0;
    attributes.sched_runtime = nanoseconds;
    attributes.sched_deadline = 0;
    attributes.sched_period = 0;
    return (int)syscall(SYS_sched_setattr, 0, &attributes, 0U);
}

int64_t cpayql_thread_slice(void) {
    struct cpayql_sched_attr attributes;
    if (read_attributes(&attributes) != 0) return -1;
    return (int64_t)attributes.sched_runtime;
}
