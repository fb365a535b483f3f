// The neutral server both benchmark clients hit: libmicrohttpd (Debian's
// libmicrohttpd-dev), epoll, one internal polling thread, keep-alive, and a
// fixed 122-byte JSON answer to any method and path (request bodies are read
// and dropped). Usage: server PORT  (prints "ready" once listening on 127.0.0.1).
#include <microhttpd.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char answer[] =
    "{\"id\":\"order_Bench0000000001\",\"entity\":\"order\",\"amount\":50000,"
    "\"currency\":\"INR\",\"status\":\"created\",\"attempts\":0,\"notes\":[]}";

static struct MHD_Response *response;

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **state) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
    if (*state == NULL) { // first call: headers only
        *state = connection;
        return MHD_YES;
    }
    if (*upload_data_size != 0) { // body chunk: drop it
        *upload_data_size = 0;
        return MHD_YES;
    }
    return MHD_queue_response(connection, MHD_HTTP_OK, response);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: server PORT\n"); return 2; }
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)atoi(argv[1]));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    response = MHD_create_response_from_buffer(sizeof answer - 1, (void *)answer, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, "Content-Type", "application/json");
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, handle, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)1024,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
        MHD_OPTION_END);
    if (daemon == NULL) { fprintf(stderr, "server: cannot listen on 127.0.0.1:%s\n", argv[1]); return 1; }
    printf("ready\n");
    fflush(stdout);
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    sigprocmask(SIG_BLOCK, &signals, NULL);
    int received;
    sigwait(&signals, &received);
    MHD_stop_daemon(daemon);
    MHD_destroy_response(response);
    return 0;
}
