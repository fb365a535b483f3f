// The ceiling for Benchmarks/http: libmicrohttpd alone, configured like PayQL's
// server (epoll thread pool sized to the cores, keep-alive), reading the POST
// body and answering a fixed `{ __typename }` result. No Swift, no GraphQL.
// Given SLICE_US (microseconds), its threads ask the kernel for a short scheduling
// slice as PayQL's do; 0, the default, keeps the kernel's slice: measured, the bare
// server is fastest that way, and a ceiling should be the fastest (README.md).
// Build: cc -O2 -I Sources/CPayQLShims/include -o bare-mhd bare-mhd.c Sources/CPayQLShims/cpayql_sched.c -lmicrohttpd ; run: ./bare-mhd PORT THREADS [SLICE_US]
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cpayql_sched.h"

static const char body[] = "{\"data\":{\"__typename\":\"Query\"}}";
static int marker;
static uint64_t slice_ns;

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size, void **state) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
    if (*state == NULL) {
        // PayQL's own request (Sources/CPayQLShims/cpayql_sched.c, linked in): once per thread.
        if (slice_ns > 0) cpayql_request_thread_slice(slice_ns);
        *state = &marker;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    struct MHD_Response *response = MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, "content-type", "application/json");
    enum MHD_Result result = MHD_queue_response(connection, 200, response);
    MHD_destroy_response(response);
    return result;
}

int main(int argc, char **argv) {
    unsigned short port = argc > 1 ? (unsigned short)atoi(argv[1]) : 18082;
    unsigned int threads = argc > 2 ? (unsigned int)atoi(argv[2]) : (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
    slice_ns = argc > 3 ? (uint64_t)strtoull(argv[3], NULL, 10) * 1000u : 0;
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // loopback only
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD, port, NULL, NULL, answer, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
        MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_LIMIT, 4096u, MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "bare-mhd: cannot start on port %u\n", port);
        return 1;
    }
    printf("bare libmicrohttpd listening on %u\n", port);
    fflush(stdout);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int received;
    sigwait(&set, &received);
    MHD_stop_daemon(daemon);
    return 0;
}
