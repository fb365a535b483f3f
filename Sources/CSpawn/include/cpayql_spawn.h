// posix_spawn helpers that Swift's Glibc module does not expose.
#ifndef CPAYQL_SPAWN_H
#define CPAYQL_SPAWN_H
#include <spawn.h>

/// Adds "close every descriptor from `lowest` up" to `actions`
/// (glibc's posix_spawn_file_actions_addclosefrom_np, glibc 2.34 and later).
/// Returns 0 or an errno value.
int cpayql_spawn_add_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// pipe2(fds, O_CLOEXEC): a pipe whose ends no child inherits by accident.
/// Returns 0, or -1 with errno set.
int cpayql_pipe_cloexec(int fds[2]);

#endif
