#define _GNU_SOURCE
#include "cpayql_mhd.h"
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

/// Connections open per client address (only when a per-IP limit is set).
struct ip_entry {
    struct ip_entry *next;
    unsigned char address[16];
    unsigned char length;   // 4 or 16
    unsigned int count;
};

#define IP_BUCKETS 1024

struct cpayql_mhd_server {
    struct MHD_Daemon *daemon;
    int listen_fd;
    int wake[2];                 // a byte written to wake[1] ends the acceptor
    pthread_t acceptor;
    int acceptor_running;        // touched only by start and stop_accepting (one thread at a time)
    uint16_t port;
    unsigned int per_ip_limit;   // 0: unlimited
    pthread_mutex_t ip_lock;     // guards ip_table (acceptor thread + pool threads closing connections)
    struct ip_entry *ip_table[IP_BUCKETS];
};

/// The address bytes of `address` (4 for IPv4, 16 for IPv6); 0 when neither.
static size_t address_bytes(const struct sockaddr *address, const unsigned char **bytes) {
    if (address->sa_family == AF_INET) {
        *bytes = (const unsigned char *)&((const struct sockaddr_in *)address)->sin_addr;
        return 4;
    }
    if (address->sa_family == AF_INET6) {
        *bytes = (const unsigned char *)&((const struct sockaddr_in6 *)address)->sin6_addr;
        return 16;
    }
    return 0;
}

static unsigned int address_bucket(const unsigned char *bytes, size_t length) {
    unsigned int hash = 2166136261u;  // FNV-1a
    for (size_t index = 0; index < length; index++) hash = (hash ^ bytes[index]) * 16777619u;
    return hash % IP_BUCKETS;
}

/// Counts one more connection from `address`; returns 0 when that would pass the limit.
static int ip_acquire(struct cpayql_mhd_server *server, const struct sockaddr *address) {
    const unsigned char *bytes = NULL;
    size_t length = address_bytes(address, &bytes);
    if (server->per_ip_limit == 0 || length == 0) return 1;
    unsigned int bucket = address_bucket(bytes, length);
    int admitted = 0;
    pthread_mutex_lock(&server->ip_lock);
    struct ip_entry *entry = server->ip_table[bucket];
    while (entry != NULL && !(entry->length == length && memcmp(entry->address, bytes, length) == 0)) entry = entry->next;
    if (entry == NULL) {
        entry = calloc(1, sizeof *entry);
        if (entry != NULL) {
            memcpy(entry->address, bytes, length);
            entry->length = (unsigned char)length;
            entry->next = server->ip_table[bucket];
            server->ip_table[bucket] = entry;
        }
    }
    if (entry != NULL && entry->count < server->per_ip_limit) {
        entry->count++;
        admitted = 1;
    }
    pthread_mutex_unlock(&server->ip_lock);
    return admitted;
}

/// Counts one connection from `address` less (never below zero).
static void ip_release(struct cpayql_mhd_server *server, const struct sockaddr *address) {
    const unsigned char *bytes = NULL;
    size_t length = address_bytes(address, &bytes);
    if (server->per_ip_limit == 0 || length == 0) return;
    unsigned int bucket = address_bucket(bytes, length);
    pthread_mutex_lock(&server->ip_lock);
    struct ip_entry **link = &server->ip_table[bucket];
    while (*link != NULL && !((*link)->length == length && memcmp((*link)->address, bytes, length) == 0)) link = &(*link)->next;
    struct ip_entry *entry = *link;
    if (entry != NULL && entry->count > 0 && --entry->count == 0) {
        *link = entry->next;
        free(entry);
    }
    pthread_mutex_unlock(&server->ip_lock);
}

/// MHD_OPTION_NOTIFY_CONNECTION: a closed connection frees its per-IP slot.
static void connection_notified(void *cls, struct MHD_Connection *connection, void **socket_context,
                                enum MHD_ConnectionNotificationCode code) {
    (void)socket_context;
    struct cpayql_mhd_server *server = cls;
    if (code != MHD_CONNECTION_NOTIFY_CLOSED || server->per_ip_limit == 0) return;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info != NULL && info->client_addr != NULL) ip_release(server, info->client_addr);
}

/// The acceptor: accepts until told to stop and hands every socket to the pool.
static void *acceptor_main(void *argument) {
    struct cpayql_mhd_server *server = argument;
    struct pollfd watched[2] = {
        {.fd = server->listen_fd, .events = POLLIN},
        {.fd = server->wake[0], .events = POLLIN},
    };
    for (;;) {
        if (poll(watched, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (watched[1].revents != 0) break;
        if ((watched[0].revents & POLLIN) == 0) continue;
        // Everything waiting now, a bounded batch at a time.
        for (int batch = 0; batch < 128; batch++) {
            struct sockaddr_storage address;
            socklen_t length = sizeof address;
            int client = accept4(server->listen_fd, (struct sockaddr *)&address, &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (client < 0) {
                if (errno == EINTR || errno == ECONNABORTED) continue;
                if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                    // Out of descriptors or memory: the connection waits in the backlog; do not spin on it.
                    (void)poll(&watched[1], 1, 20);
                }
                break;  // EAGAIN: nothing more waiting
            }
            if (!ip_acquire(server, (struct sockaddr *)&address)) {
                close(client);
                continue;
            }
            // MHD closes the socket itself when it cannot take it; the slot is released then
            // only if the connection was created (NOTIFY_CLOSED), so release it here otherwise.
            if (MHD_add_connection(server->daemon, client, (struct sockaddr *)&address, length) != MHD_YES) {
                ip_release(server, (struct sockaddr *)&address);
            }
        }
    }
    return NULL;
}

/// A listening, non-blocking socket on host:port; -1 with errno set on failure.
static int listen_on(const struct cpayql_mhd_config *config) {
    struct sockaddr_storage storage;
    socklen_t length;
    memset(&storage, 0, sizeof storage);
    struct sockaddr_in *v4 = (struct sockaddr_in *)&storage;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&storage;
    if (inet_pton(AF_INET, config->host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(config->port);
        length = sizeof *v4;
    } else if (inet_pton(AF_INET6, config->host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(config->port);
        length = sizeof *v6;
    } else {
        errno = EINVAL;
        return -1;
    }
    int fd = socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int on = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (storage.ss_family == AF_INET6) (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    if (bind(fd, (struct sockaddr *)&storage, length) != 0 ||
        listen(fd, config->listen_backlog > 0 ? (int)config->listen_backlog : 511) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

struct cpayql_mhd_server *cpayql_mhd_start(const struct cpayql_mhd_config *config,
                                           MHD_AccessHandlerCallback handler, void *handler_cls,
                                           MHD_RequestCompletedCallback completed, void *completed_cls,
                                           cpayql_mhd_uri_callback uri_callback, void *uri_cls) {
    struct cpayql_mhd_server *server = calloc(1, sizeof *server);
    if (server == NULL) return NULL;
    server->listen_fd = -1;
    server->wake[0] = server->wake[1] = -1;
    server->per_ip_limit = config->per_ip_connection_limit;
    pthread_mutex_init(&server->ip_lock, NULL);
    int failure = 0;

    server->listen_fd = listen_on(config);
    if (server->listen_fd < 0) goto fail;
    struct sockaddr_storage bound;
    socklen_t bound_length = sizeof bound;
    if (getsockname(server->listen_fd, (struct sockaddr *)&bound, &bound_length) != 0) goto fail;
    server->port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                     : ((struct sockaddr_in *)&bound)->sin_port);
    if (pipe2(server->wake, O_CLOEXEC | O_NONBLOCK) != 0) goto fail;

    // MHD_USE_NO_LISTEN_SOCKET cannot be combined with a thread pool, so the daemon gets
    // a listening socket of its own that nobody is told about (an ephemeral loopback port)
    // and is quiesced at once: from then on it only serves what MHD_add_connection gives it.
    struct cpayql_mhd_config decoy = *config;
    decoy.host = "127.0.0.1";
    decoy.port = 0;
    decoy.listen_backlog = 1;
    int decoy_fd = listen_on(&decoy);
    if (decoy_fd < 0) goto fail;
    unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
    if (config->turbo) flags |= MHD_USE_TURBO;
    server->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, handler, handler_cls,
        MHD_OPTION_LISTEN_SOCKET, decoy_fd,
        MHD_OPTION_THREAD_POOL_SIZE, config->thread_pool_size > 0 ? config->thread_pool_size : 1,
        MHD_OPTION_CONNECTION_LIMIT, config->connection_limit > 0 ? config->connection_limit : 1024,
        MHD_OPTION_CONNECTION_TIMEOUT, config->connection_timeout,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, config->connection_memory_limit > 0 ? config->connection_memory_limit : (size_t)32768,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_NOTIFY_CONNECTION, connection_notified, server,
        MHD_OPTION_URI_LOG_CALLBACK, uri_callback, uri_cls,
        MHD_OPTION_END);
    if (server->daemon == NULL) {
        close(decoy_fd);
        goto fail;
    }
    int quiesced = MHD_quiesce_daemon(server->daemon);
    if (quiesced >= 0) close(quiesced);

    if (pthread_create(&server->acceptor, NULL, acceptor_main, server) != 0) goto fail;
    server->acceptor_running = 1;
    return server;

fail:
    failure = errno;
    if (server->daemon != NULL) MHD_stop_daemon(server->daemon);
    if (server->listen_fd >= 0) close(server->listen_fd);
    if (server->wake[0] >= 0) close(server->wake[0]);
    if (server->wake[1] >= 0) close(server->wake[1]);
    pthread_mutex_destroy(&server->ip_lock);
    free(server);
    errno = failure;
    return NULL;
}

struct MHD_Daemon *cpayql_mhd_daemon(struct cpayql_mhd_server *server) {
    return server->daemon;
}

uint16_t cpayql_mhd_bound_port(struct cpayql_mhd_server *server) {
    return server->port;
}

void cpayql_mhd_stop_accepting(struct cpayql_mhd_server *server) {
    if (!server->acceptor_running) return;
    server->acceptor_running = 0;
    char byte = 1;
    while (write(server->wake[1], &byte, 1) < 0 && errno == EINTR) {}
    pthread_join(server->acceptor, NULL);
    close(server->listen_fd);
    server->listen_fd = -1;
}

void cpayql_mhd_stop(struct cpayql_mhd_server *server) {
    cpayql_mhd_stop_accepting(server);
    MHD_stop_daemon(server->daemon);
    close(server->wake[0]);
    close(server->wake[1]);
    for (int bucket = 0; bucket < IP_BUCKETS; bucket++) {
        struct ip_entry *entry = server->ip_table[bucket];
        while (entry != NULL) {
            struct ip_entry *next = entry->next;
            free(entry);
            entry = next;
        }
    }
    pthread_mutex_destroy(&server->ip_lock);
    free(server);
}

int cpayql_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t length) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || length == 0) return -1;
    const struct sockaddr *address = info->client_addr;
    const void *source;
    if (address->sa_family == AF_INET) {
        source = &((const struct sockaddr_in *)address)->sin_addr;
    } else if (address->sa_family == AF_INET6) {
        source = &((const struct sockaddr_in6 *)address)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->sa_family, source, buffer, (socklen_t)length) == NULL ? -1 : 0;
}

enum MHD_Result cpayql_mhd_respond(struct MHD_Connection *connection, unsigned int status,
                                   const void *body, size_t body_length,
                                   const char *headers, size_t header_count) {
    struct MHD_Response *response =
        MHD_create_response_from_buffer(body_length, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (response == NULL) return MHD_NO;
    const char *cursor = headers;
    for (size_t index = 0; index < header_count; index++) {
        const char *name = cursor;
        cursor += strlen(cursor) + 1;
        const char *value = cursor;
        cursor += strlen(cursor) + 1;
        if (MHD_add_response_header(response, name, value) != MHD_YES) {
            MHD_destroy_response(response);
            return MHD_NO;
        }
    }
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}
