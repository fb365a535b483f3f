#include "cpayql_mhd.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <time.h>

/// Fills `v4` or `v6` with host:port (a numeric IPv4 or IPv6 address) and returns the
/// one filled as a sockaddr, with its length; NULL (errno EINVAL) for anything else.
static const struct sockaddr *numeric_address(const char *host, uint16_t port, struct sockaddr_in *v4,
                                              struct sockaddr_in6 *v6, socklen_t *length) {
    memset(v4, 0, sizeof *v4);
    memset(v6, 0, sizeof *v6);
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        *length = sizeof *v4;
        return (const struct sockaddr *)v4;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        *length = sizeof *v6;
        return (const struct sockaddr *)v6;
    }
    errno = EINVAL;
    return NULL;
}

struct MHD_Daemon *cpayql_mhd_start(const struct cpayql_mhd_config *config,
                                    MHD_AccessHandlerCallback handler, void *handler_cls,
                                    MHD_RequestCompletedCallback completed, void *completed_cls,
                                    cpayql_mhd_uri_callback uri_callback, void *uri_cls,
                                    MHD_NotifyConnectionCallback connection_notify, void *notify_cls,
                                    MHD_AcceptPolicyCallback accept_policy, void *accept_cls) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address;
    // libmicrohttpd formats its Date header with gmtime_r for every response, and
    // glibc's gmtime_r takes a process-wide time-zone lock: server threads contend
    // on it (the futex calls of the HTTP benchmark, traced to __tz_convert). The
    // daemon's Date is suppressed and cpayql_mhd_respond adds one formatted once a
    // second per thread. Responses libmicrohttpd makes itself (a malformed request
    // line, headers over the limit) then go without Date.
    // An external daemon has no inter-thread channel (libmicrohttpd 0.9.75 drops MHD_USE_ITC
    // without an internal thread): whoever resumes one of its connections asks its loop for a
    // run (HTTPServerEventLoop), which costs nothing on the loop's own thread.
    unsigned int flags = (config->external ? MHD_USE_EPOLL : MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC) |
                         MHD_ALLOW_SUSPEND_RESUME | MHD_USE_SUPPRESS_DATE_NO_CLOCK;
    // Only when asked: the option given as 0 would forbid reuse, not leave the default.
    struct MHD_OptionItem reuse[] = {
        {config->reuse_port ? MHD_OPTION_LISTENING_ADDRESS_REUSE : MHD_OPTION_END, 1, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    socklen_t length;
    address = numeric_address(config->host, config->port, &v4, &v6, &length);
    if (address == NULL) return NULL;
    if (address->sa_family == AF_INET6) flags |= MHD_USE_IPv6;
    if (config->turbo) flags |= MHD_USE_TURBO;
    return MHD_start_daemon(
        flags, config->port, accept_policy, accept_cls, handler, handler_cls,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_THREAD_POOL_SIZE, config->external ? 0 : (config->thread_pool_size > 0 ? config->thread_pool_size : 1),
        MHD_OPTION_CONNECTION_LIMIT, config->connection_limit > 0 ? config->connection_limit : 1024,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, config->per_ip_connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, config->connection_timeout,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, config->connection_memory_limit > 0 ? config->connection_memory_limit : (size_t)32768,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, config->listen_backlog > 0 ? config->listen_backlog : 511,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_URI_LOG_CALLBACK, uri_callback, uri_cls,
        MHD_OPTION_NOTIFY_CONNECTION, connection_notify, notify_cls,
        MHD_OPTION_ARRAY, reuse,
        MHD_OPTION_END);
}

int cpayql_port_in_use(const char *host, uint16_t port) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address;
    socklen_t length;
    address = numeric_address(host, port, &v4, &v6, &length);
    if (address == NULL) return 0;
    int probe = socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe < 0) return 0;
    int on = 1;
    // SO_REUSEADDR as libmicrohttpd sets it: connections in TIME_WAIT from an earlier
    // server do not count, a listening socket (with or without SO_REUSEPORT) does.
    (void)setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    int in_use = bind(probe, address, length) != 0 && errno == EADDRINUSE;
    close(probe);
    return in_use;
}

int cpayql_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

int32_t cpayql_mhd_serve(struct MHD_Daemon *daemon) {
    // libmicrohttpd 0.9.75 (epoll, daemon.c MHD_epoll and call_handlers) moves a resumed
    // connection one step per run: the first run resumes it and queues its response, the
    // second writes it, the third finds the socket empty (a resumed connection is marked
    // readable, since it may have missed an edge while suspended) and puts it back into the
    // epoll set. Between the steps MHD_get_timeout answers 0 (the connection is on the ready
    // list). Run again here instead of going back to the loop, which would poll its
    // descriptors before each step; a fourth run is the bound (something still ready then is
    // run at the loop's next turn, the timeout being 0).
    MHD_UNSIGNED_LONG_LONG timeout = 0;
    for (int run = 0; run < 4; run++) {
        (void)MHD_run(daemon);
        if (MHD_get_timeout(daemon, &timeout) != MHD_YES) return -1;
        if (timeout > 0) break;
    }
    return timeout > INT32_MAX ? INT32_MAX : (int32_t)timeout;
}

int cpayql_mhd_connection_socket(struct MHD_Connection *connection, int *fd, const void **worker) {
    const union MHD_ConnectionInfo *socket = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *daemon = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_DAEMON);
    if (socket == NULL || daemon == NULL) return -1;
    *fd = socket->connect_fd;
    *worker = daemon->daemon;
    return 0;
}

void *cpayql_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

int64_t cpayql_monotonic_coarse_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

uint16_t cpayql_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

int cpayql_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t length) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || length == 0) return -1;
    const struct sockaddr *address = info->client_addr;
    const void *source;
    if (address->sa_family == AF_INET) {
        // Dotted decimal written here: inet_ntop formats IPv4 through sprintf, a
        // measurable share of a small request's CPU (it runs for every request).
        const unsigned char *octets = (const unsigned char *)&((const struct sockaddr_in *)address)->sin_addr;
        if (length < INET_ADDRSTRLEN) return -1;
        char *out = buffer;
        for (int index = 0; index < 4; index++) {
            unsigned int octet = octets[index];
            if (octet >= 100) *out++ = (char)('0' + octet / 100);
            if (octet >= 10) *out++ = (char)('0' + octet / 10 % 10);
            *out++ = (char)('0' + octet % 10);
            *out++ = index < 3 ? '.' : '\0';
        }
        return 0;
    } else if (address->sa_family == AF_INET6) {
        source = &((const struct sockaddr_in6 *)address)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->sa_family, source, buffer, (socklen_t)length) == NULL ? -1 : 0;
}

void cpayql_http_date(int64_t seconds, char out[30]) {
    static const char *const weekdays[7] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
    static const char *const months[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    int64_t days = seconds / 86400;
    int64_t second_of_day = seconds % 86400;
    if (second_of_day < 0) {
        second_of_day += 86400;
        days -= 1;
    }
    int64_t weekday = days % 7;  // day 0 (1970-01-01) was a Thursday
    if (weekday < 0) weekday += 7;
    // The proleptic Gregorian calendar repeats every 400 years (146097 days). Count
    // from 0000-03-01 so that the leap day ends a year: day 719468 is 1970-01-01.
    int64_t shifted = days + 719468;
    int64_t era = (shifted >= 0 ? shifted : shifted - 146096) / 146097;
    int64_t day_of_era = shifted - era * 146097;
    int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
    int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    int64_t march_month = (5 * day_of_year + 2) / 153;  // 0 = March ... 11 = February
    int64_t day = day_of_year - (153 * march_month + 2) / 5 + 1;
    int64_t month = march_month < 10 ? march_month + 3 : march_month - 9;
    int64_t year = year_of_era + era * 400 + (month <= 2 ? 1 : 0);
    if (year < 0) year = 0;
    if (year > 9999) year = 9999;
    snprintf(out, 30, "%s, %02d %s %04d %02d:%02d:%02d GMT", weekdays[weekday], (int)day, months[month - 1], (int)year,
             (int)(second_of_day / 3600), (int)(second_of_day / 60 % 60), (int)(second_of_day % 60));
}

/// This thread's Date header value, formatted again when the second changes.
static const char *current_http_date(void) {
    static __thread time_t formatted_second = -1;
    static __thread char formatted[30];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME_COARSE, &now);
    if (now.tv_sec != formatted_second) {
        cpayql_http_date((int64_t)now.tv_sec, formatted);
        formatted_second = now.tv_sec;
    }
    return formatted;
}

/// Adds the packed headers and, unless one is among them, a Date header; MHD_NO on failure.
static enum MHD_Result add_packed_headers(struct MHD_Response *response, const char *headers, size_t header_count) {
    const char *cursor = headers;
    int has_date = 0;
    for (size_t index = 0; index < header_count; index++) {
        const char *name = cursor;
        if (strcasecmp(name, MHD_HTTP_HEADER_DATE) == 0) has_date = 1;
        cursor += strlen(cursor) + 1;
        const char *value = cursor;
        cursor += strlen(cursor) + 1;
        if (MHD_add_response_header(response, name, value) != MHD_YES) return MHD_NO;
    }
    if (!has_date && MHD_add_response_header(response, MHD_HTTP_HEADER_DATE, current_http_date()) != MHD_YES) {
        return MHD_NO;
    }
    return MHD_YES;
}

// Adds the packed headers, queues the response and drops this reference to it (libmicrohttpd
// keeps its own while the response is queued); on a failed header nothing is queued.
static enum MHD_Result queue_with_headers(struct MHD_Connection *connection, unsigned int status,
                                          struct MHD_Response *response, const char *headers, size_t header_count) {
    if (add_packed_headers(response, headers, header_count) != MHD_YES) {
        MHD_destroy_response(response);
        return MHD_NO;
    }
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

enum MHD_Result cpayql_mhd_respond(struct MHD_Connection *connection, unsigned int status,
                                   const void *body, size_t body_length,
                                   const char *headers, size_t header_count) {
    struct MHD_Response *response =
        MHD_create_response_from_buffer(body_length, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (response == NULL) return MHD_NO;
    return queue_with_headers(connection, status, response, headers, header_count);
}

enum MHD_Result cpayql_mhd_respond_stream(struct MHD_Connection *connection, unsigned int status,
                                          const char *headers, size_t header_count, size_t block_size,
                                          MHD_ContentReaderCallback reader, void *reader_cls,
                                          MHD_ContentReaderFreeCallback free_callback) {
    struct MHD_Response *response =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, block_size, reader, reader_cls, free_callback);
    if (response == NULL) {
        free_callback(reader_cls);
        return MHD_NO;
    }
    // From here on MHD_destroy_response (the last reference) calls free_callback.
    return queue_with_headers(connection, status, response, headers, header_count);
}

int cpayql_hangup_watch_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int cpayql_hangup_watch_add(int watch, int fd, uint64_t token) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLRDHUP | EPOLLET;
    event.data.u64 = token;
    return epoll_ctl(watch, EPOLL_CTL_ADD, fd, &event);
}

int cpayql_hangup_watch_remove(int watch, int fd) { return epoll_ctl(watch, EPOLL_CTL_DEL, fd, NULL); }

int cpayql_hangup_watch_poll(int watch, uint64_t *tokens, int capacity) {
    struct epoll_event events[128];
    if (capacity > 128) capacity = 128;
    int count = epoll_wait(watch, events, capacity, 0);
    for (int index = 0; index < count; index++) tokens[index] = events[index].data.u64;
    return count;
}
