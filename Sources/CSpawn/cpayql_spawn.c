// _GNU_SOURCE makes glibc declare posix_spawn_file_actions_addclosefrom_np.
#define _GNU_SOURCE
#include "cpayql_spawn.h"
#include <fcntl.h>
#include <unistd.h>

int cpayql_spawn_add_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int cpayql_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
