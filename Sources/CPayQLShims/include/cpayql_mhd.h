// libmicrohttpd shims (owned by HTTPServer): MHD_start_daemon is variadic.
#ifndef CPAYQL_MHD_H
#define CPAYQL_MHD_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>
#endif
