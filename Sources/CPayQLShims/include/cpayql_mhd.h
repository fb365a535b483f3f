// libmicrohttpd shims (owned by HTTPServer): MHD_start_daemon, MHD_get_daemon_info and
// MHD_get_connection_info are variadic, which Swift cannot call; response building is
// folded into one call so that a request crosses the C boundary once.
#ifndef CPAYQL_MHD_H
#define CPAYQL_MHD_H
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Everything MHD_start_daemon needs, as a plain struct (0 means "MHD's default").
struct cpayql_mhd_config {
    const char *host;                       // numeric IPv4 or IPv6 address to bind
    uint16_t port;                          // 0: ephemeral
    unsigned int thread_pool_size;          // epoll threads
    unsigned int connection_limit;          // total connections
    unsigned int per_ip_connection_limit;   // 0: unlimited
    unsigned int connection_timeout;        // idle seconds before MHD closes a connection
    size_t connection_memory_limit;         // per-connection pool: bounds request line + headers
    unsigned int listen_backlog;
    int turbo;                              // MHD_USE_TURBO
    int external;                           // no threads of its own: driven by cpayql_mhd_serve
    int reuse_port;                         // SO_REUSEPORT: several daemons on one port
};

/// Writes the IMF-fixdate (RFC 9110 §5.6.7, e.g. "Sun, 06 Nov 1994 08:49:37 GMT")
/// of `seconds` since the Unix epoch into `out` (29 characters and a NUL) without
/// libc's time functions (no locale, no time-zone lock). Years 0–9999.
void cpayql_http_date(int64_t seconds, char out[30]);

/// Callback that creates per-request state when the request line arrives (MHD_OPTION_URI_LOG_CALLBACK).
typedef void *(*cpayql_mhd_uri_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/// Starts an epoll daemon with suspend/resume, with a pool of its own threads or, with
/// `config->external`, none (another thread calls cpayql_mhd_serve); NULL on failure (errno may tell why).
/// `connection_notify` sees every connection open and close (MHD_OPTION_NOTIFY_CONNECTION),
/// in the thread that serves it. `accept_policy` decides for each accepted connection whether
/// it is served (a draining server refuses new ones there instead of MHD_quiesce_daemon).
struct MHD_Daemon *cpayql_mhd_start(const struct cpayql_mhd_config *config,
                                    MHD_AccessHandlerCallback handler, void *handler_cls,
                                    MHD_RequestCompletedCallback completed, void *completed_cls,
                                    cpayql_mhd_uri_callback uri_callback, void *uri_cls,
                                    MHD_NotifyConnectionCallback connection_notify, void *notify_cls,
                                    MHD_AcceptPolicyCallback accept_policy, void *accept_cls);

/// The connection's socket and the pool thread's daemon serving it (MHD_get_connection_info
/// is variadic); returns 0 on success.
int cpayql_mhd_connection_socket(struct MHD_Connection *connection, int *fd, const void **worker);

/// The `socket_context` stored for the connection when it opened (variadic
/// MHD_get_connection_info again); NULL if none.
void *cpayql_mhd_socket_context(struct MHD_Connection *connection);

/// CLOCK_MONOTONIC_COARSE in milliseconds: a few nanoseconds through the vDSO,
/// precise to a scheduler tick, for deadlines of seconds checked per request.
int64_t cpayql_monotonic_coarse_ms(void);

/// An external daemon's epoll descriptor (MHD_DAEMON_INFO_EPOLL_FD), for its event loop to
/// poll: readable when a connection or the listening socket has an event; -1 if none.
int cpayql_mhd_epoll_fd(struct MHD_Daemon *daemon);

/// Runs an external daemon without waiting until it has nothing left to do at once (at most
/// four MHD_run, see cpayql_mhd.c) and returns the milliseconds until it must run again although
/// its epoll descriptor is not readable (-1: no deadline; 0: run again at the next turn).
int32_t cpayql_mhd_serve(struct MHD_Daemon *daemon);

/// The port the daemon actually bound (for port 0), or 0 if unknown.
uint16_t cpayql_mhd_bound_port(struct MHD_Daemon *daemon);

/// Whether something already listens on host:port: a plain socket (SO_REUSEADDR, no
/// SO_REUSEPORT) is bound there and closed again. Daemons that share a port with
/// SO_REUSEPORT would otherwise also share it with another process of the same user
/// started on that port by mistake (both serving, the connections split between them),
/// where a server on a port of its own fails with "address in use". Returns 1 when the
/// address is in use, 0 otherwise (free, or an error binding will report again).
int cpayql_port_in_use(const char *host, uint16_t port);

/// Writes the client's numeric address into buffer; returns 0 on success.
int cpayql_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t length);

/// Builds a response from `body` (copied), adds `header_count` headers given as
/// NUL-terminated name/value strings packed back to back in `headers` and, unless
/// they have one, a `Date` header (the daemon's own is suppressed: see cpayql_mhd.c), queues it and drops
/// MHD's reference. Returns MHD_YES on success.
enum MHD_Result cpayql_mhd_respond(struct MHD_Connection *connection, unsigned int status,
                                   const void *body, size_t body_length,
                                   const char *headers, size_t header_count);

/// Queues a streamed response (unknown length: chunked under HTTP/1.1) whose body comes from
/// `reader` (MHD_create_response_from_callback), with the packed headers as in cpayql_mhd_respond.
/// `free_callback(reader_cls)` runs exactly once: when MHD lets the response go, or here
/// if it cannot be built. Returns MHD_YES on success.
enum MHD_Result cpayql_mhd_respond_stream(struct MHD_Connection *connection, unsigned int status,
                                          const char *headers, size_t header_count, size_t block_size,
                                          MHD_ContentReaderCallback reader, void *reader_cls,
                                          MHD_ContentReaderFreeCallback free_callback);

/// A watch for connections whose client has closed its side (an epoll set of
/// EPOLLRDHUP only). libmicrohttpd reads a connection once per edge-triggered
/// event, so a FIN that arrives with the last bytes of a partial head is never
/// read until a timeout; this watch sees it. Returns the watch's descriptor or -1.
int cpayql_hangup_watch_create(void);
/// Watches `fd` (edge-triggered), reporting `token` when its peer closes; 0 on success.
int cpayql_hangup_watch_add(int watch, int fd, uint64_t token);
/// Stops watching `fd` (before it is closed); 0 on success.
int cpayql_hangup_watch_remove(int watch, int fd);
/// Without waiting, writes up to `capacity` tokens of hung-up connections; returns how many (or -1).
int cpayql_hangup_watch_poll(int watch, uint64_t *tokens, int capacity);
#endif
