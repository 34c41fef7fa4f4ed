/*
 * The floor under a bus's call latency on this machine: what bench-bus
 * latency's call would cost through a relay that does no work at all.
 *
 *   bench-floor COUNT      median_us, p99_us, relay_cpu_us (per call),
 *                          relay_switches (per call)
 *
 * The same shape as a call through the bus in bench-bus latency: a client,
 * a relay and a service, three processes on whatever CPUs they are given
 * (the driver pins all three to one), six one-way trips per call: the call
 * to the relay and on to the service, the service's question to the relay
 * and its answer (sd-bus asks GetConnectionUnixUser before running a
 * method), the reply to the relay and back to the client. The message
 * sizes are those sd-bus and the bus write for a 16 B echo call, and the
 * client and the service make sd-bus's system calls: a sendmsg() of header
 * and body, then a recvmsg() that finds nothing, ppoll(), and two
 * recvmsg() for the 24 B fixed header and the rest. The relay makes the
 * fewest a readiness loop can, one epoll_wait(), one recvmsg() with room
 * for descriptors and one sendmsg() per message, and nothing else: no
 * parsing, no policy, no allocation. What a bus costs above this is its
 * own work and the extra switches it causes; what the two ends cost above
 * it is sd-bus's.
 *
 * Each message starts with its length (4 bytes) and a tag saying where it
 * goes; the relay frames by the length, so several messages in one read
 * or one split across reads are still forwarded right.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Bytes on the wire for one 16 B echo call through mssf-broker (strace of bench-bus). */
enum {
        FLOOR_CALL = 136,               /* client -> relay */
        FLOOR_CALL_FORWARDED = 168,     /* relay -> service, the sender stamped */
        FLOOR_QUESTION = 160,           /* service -> relay: GetConnectionUnixUser */
        FLOOR_ANSWER = 64,              /* relay -> service */
        FLOOR_REPLY = 72,               /* service -> relay */
        FLOOR_REPLY_FORWARDED = 88,     /* relay -> client */
        FLOOR_HEADER = 24,
        FLOOR_MAX = 256,
};

enum { TAG_CALL = 'C', TAG_CALL_FORWARDED = 'c', TAG_QUESTION = 'Q', TAG_ANSWER = 'a',
       TAG_REPLY = 'R', TAG_REPLY_FORWARDED = 'r' };

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int send_message(int fd, uint8_t tag, size_t size) {
        uint8_t buf[FLOOR_MAX] = { 0 };
        uint32_t length = (uint32_t)size;

        memcpy(buf, &length, sizeof(length));
        buf[4] = tag;
        struct iovec iov[2] = { { buf, FLOOR_HEADER }, { buf + FLOOR_HEADER, size - FLOOR_HEADER } };
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
        return sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)size ? 0 : -1;
}

static ssize_t recv_some(int fd, void *buf, size_t size) {
        struct iovec iov = { buf, size };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        return recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
}

/* Exactly size bytes, waiting in ppoll() whenever there are none yet; -1 when the peer is gone. */
static int recv_exact(int fd, uint8_t *buf, size_t size) {
        for (size_t got = 0; got < size;) {
                ssize_t n = recv_some(fd, buf + got, size - got);

                if (n > 0) {
                        got += (size_t)n;
                        continue;
                }
                if (n == 0 || errno != EAGAIN)
                        return -1;
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (ppoll(&p, 1, NULL, NULL) < 0 && errno != EINTR)
                        return -1;
        }
        return 0;
}

/* One message as sd-bus reads it; its tag, or -1 when the peer is gone or broke the framing. */
static int read_message(int fd) {
        uint8_t buf[FLOOR_MAX];
        uint32_t length;

        if (recv_exact(fd, buf, FLOOR_HEADER) < 0)
                return -1;
        memcpy(&length, buf, sizeof(length));
        if (length <= FLOOR_HEADER || length > FLOOR_MAX)
                return -1;
        if (recv_exact(fd, buf + FLOOR_HEADER, length - FLOOR_HEADER) < 0)
                return -1;
        return buf[4];
}

typedef struct RelayEnd {
        int fd;
        uint8_t in[2 * FLOOR_MAX];
        size_t n_in;
} RelayEnd;

/* Forward every whole message in end's input; -1 on a message the relay does not know. */
static int relay_forward(RelayEnd *end, int client_fd, int service_fd) {
        size_t start = 0;

        while (end->n_in - start >= 5) {
                uint32_t length;
                int r;

                memcpy(&length, end->in + start, sizeof(length));
                if (length <= FLOOR_HEADER || length > FLOOR_MAX)
                        return -1;
                if (end->n_in - start < length)
                        break;
                switch (end->in[start + 4]) {
                case TAG_CALL:
                        r = send_message(service_fd, TAG_CALL_FORWARDED, FLOOR_CALL_FORWARDED);
                        break;
                case TAG_QUESTION:
                        r = send_message(service_fd, TAG_ANSWER, FLOOR_ANSWER);
                        break;
                case TAG_REPLY:
                        r = send_message(client_fd, TAG_REPLY_FORWARDED, FLOOR_REPLY_FORWARDED);
                        break;
                default:
                        return -1;
                }
                if (r < 0)
                        return -1;
                start += length;
        }
        memmove(end->in, end->in + start, end->n_in - start);
        end->n_in -= start;
        return 0;
}

static int read_counter(const char *path, const char *key, long long *ret) {
        char line[256];
        FILE *f = fopen(path, "re");
        int r = -1;

        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f)) {
                if (!key) {
                        r = sscanf(line, "%lld", ret) == 1 ? 0 : -1;
                        break;
                }
                if (!strncmp(line, key, strlen(key))) {
                        r = sscanf(line + strlen(key), "%lld", ret) == 1 ? 0 : -1;
                        break;
                }
        }
        fclose(f);
        return r;
}

/* The relay's CPU time (ns) and context switches so far, on one line of the report pipe. */
static void relay_report(int report_fd) {
        long long ns = 0, voluntary = 0, involuntary = 0;
        char line[128];
        int n;

        (void)read_counter("/proc/self/schedstat", NULL, &ns);
        (void)read_counter("/proc/self/status", "voluntary_ctxt_switches:", &voluntary);
        (void)read_counter("/proc/self/status", "nonvoluntary_ctxt_switches:", &involuntary);
        n = snprintf(line, sizeof(line), "%lld %lld\n", ns, voluntary + involuntary);
        (void)!write(report_fd, line, (size_t)n);
}

static int run_relay(int client_fd, int service_fd, int report_fd) {
        union {
                struct cmsghdr align;
                uint8_t buf[CMSG_SPACE(sizeof(int) * 253)];
        } control;
        RelayEnd ends[2] = { { .fd = client_fd }, { .fd = service_fd } };
        int ep = epoll_create1(EPOLL_CLOEXEC);

        if (ep < 0)
                return 1;
        for (int i = 0; i < 2; i++) {
                struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &ends[i] };
                if (epoll_ctl(ep, EPOLL_CTL_ADD, ends[i].fd, &ev) < 0)
                        return 1;
        }
        relay_report(report_fd);
        for (;;) {
                struct epoll_event events[64];
                int n = epoll_wait(ep, events, 64, -1);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return 1;
                for (int i = 0; i < n; i++) {
                        RelayEnd *end = events[i].data.ptr;
                        struct iovec iov = { end->in + end->n_in, sizeof(end->in) - end->n_in };
                        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
                                             .msg_control = &control, .msg_controllen = sizeof(control) };
                        ssize_t got = recvmsg(end->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

                        if (got < 0 && errno == EAGAIN)
                                continue;
                        if (got <= 0) {         /* the client is done */
                                relay_report(report_fd);
                                return 0;
                        }
                        end->n_in += (size_t)got;
                        if (relay_forward(end, client_fd, service_fd) < 0)
                                return 1;
                }
        }
}

static int run_service(int fd) {
        for (;;) {
                int tag = read_message(fd);
                if (tag < 0)
                        return 0;
                if (tag != TAG_CALL_FORWARDED || send_message(fd, TAG_QUESTION, FLOOR_QUESTION) < 0 ||
                    read_message(fd) != TAG_ANSWER)
                        return 1;
                (void)getuid();         /* sd-bus compares the answer with its own uid */
                if (send_message(fd, TAG_REPLY, FLOOR_REPLY) < 0)
                        return 1;
        }
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}

static int read_report(FILE *f, long long *ret_ns, long long *ret_switches) {
        return fscanf(f, "%lld %lld", ret_ns, ret_switches) == 2 ? 0 : -1;
}

int main(int argc, char **argv) {
        int client[2], service[2], report[2];
        unsigned count, total;
        uint64_t *samples;
        pid_t relay_pid, service_pid;
        long long ns0, sw0, ns1, sw1;
        int status;
        FILE *reports;

        if (argc != 2 || atoi(argv[1]) < 10) {
                fprintf(stderr, "usage: %s COUNT (at least 10)\n", argv[0]);
                return 2;
        }
        count = (unsigned)atoi(argv[1]);
        total = count + count / 10;     /* the first tenth warms up, as in bench-bus */
        samples = calloc(count, sizeof(*samples));
        if (!samples || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, client) < 0 ||
            socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, service) < 0 || pipe2(report, O_CLOEXEC) < 0)
                return 1;
        relay_pid = fork();
        if (relay_pid == 0) {
                close(client[0]);
                close(service[0]);
                close(report[0]);
                _exit(run_relay(client[1], service[1], report[1]));
        }
        service_pid = fork();
        if (service_pid == 0) {
                close(client[0]);
                close(client[1]);
                close(service[1]);
                close(report[0]);
                close(report[1]);
                _exit(run_service(service[0]));
        }
        if (relay_pid < 0 || service_pid < 0)
                return 1;
        close(client[1]);
        close(service[0]);
        close(service[1]);
        close(report[1]);
        reports = fdopen(report[0], "r");
        if (!reports || read_report(reports, &ns0, &sw0) < 0)
                return 1;
        for (unsigned i = 0; i < total; i++) {
                uint64_t t0 = now_ns();
                if (send_message(client[0], TAG_CALL, FLOOR_CALL) < 0 ||
                    read_message(client[0]) != TAG_REPLY_FORWARDED) {
                        fprintf(stderr, "bench-floor: the relay or the service failed\n");
                        return 1;
                }
                if (i >= count / 10)
                        samples[i - count / 10] = now_ns() - t0;
        }
        close(client[0]);
        if (read_report(reports, &ns1, &sw1) < 0)
                return 1;
        if (waitpid(relay_pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
            waitpid(service_pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "bench-floor: the relay or the service failed\n");
                return 1;
        }
        qsort(samples, count, sizeof(*samples), cmp_u64);
        printf("median_us %.1f\n", samples[count / 2] / 1000.0);
        printf("p99_us %.1f\n", samples[(size_t)count * 99 / 100] / 1000.0);
        printf("relay_cpu_us %.1f\n", (double)(ns1 - ns0) / total / 1000.0);
        printf("relay_switches %.2f\n", (double)(sw1 - sw0) / total);
        return 0;
}
