#include "cpayql_mhd.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

struct MHD_Daemon *cpayql_mhd_start(const struct cpayql_mhd_config *config,
                                    MHD_AccessHandlerCallback handler, void *handler_cls,
                                    MHD_RequestCompletedCallback completed, void *completed_cls,
                                    cpayql_mhd_uri_callback uri_callback, void *uri_cls) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address;
    unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, config->host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(config->port);
        address = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, config->host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(config->port);
        address = (const struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        errno = EINVAL;
        return NULL;
    }
    if (config->turbo) flags |= MHD_USE_TURBO;
    return MHD_start_daemon(
        flags, config->port, NULL, NULL, handler, handler_cls,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_THREAD_POOL_SIZE, config->thread_pool_size > 0 ? config->thread_pool_size : 1,
        MHD_OPTION_CONNECTION_LIMIT, config->connection_limit > 0 ? config->connection_limit : 1024,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, config->per_ip_connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, config->connection_timeout,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, config->connection_memory_limit > 0 ? config->connection_memory_limit : (size_t)32768,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, config->listen_backlog > 0 ? config->listen_backlog : 511,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_URI_LOG_CALLBACK, uri_callback, uri_cls,
        MHD_OPTION_END);
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
