// Typed, non-variadic wrappers for C functions that Swift cannot call.
// One header per library; every symbol is prefixed `cpayql_`.
#ifndef CPAYQL_SHIMS_H
#define CPAYQL_SHIMS_H
#include "cpayql_curl.h"
#include "cpayql_mhd.h"
#include "cpayql_sched.h"
#endif
