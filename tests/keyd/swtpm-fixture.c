/*
 * swtpm for the tests: an ordinary child process in socket mode on two
 * local TCP ports picked free (P and P + 1, where tpm2-tss's swtpm TCTI
 * looks for the control channel), its state in a directory of its own, the
 * TPM started (not-need-init, startup-clear) as firmware would, every
 * command logged (level 20) so that the tests can count what reached the
 * TPM independently of the service's own counter. Stopped as a device
 * stops: TPM2_Shutdown, then swtpm's control command, then waitpid.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>
#include <unistd.h>

#include "swtpm-fixture.h"

/* swtpm's control channel: CMD_SHUTDOWN, a big-endian 32-bit command. */
#define SWTPM_CMD_SHUTDOWN 0x00000003u

/* Every swtpm started and not stopped: killed at exit, so that a failed test leaves none behind. */
static pid_t running[16];

static void kill_running(void) {
        for (size_t i = 0; i < sizeof(running) / sizeof(running[0]); i++)
                if (running[i] > 0) {
                        kill(running[i], SIGKILL);
                        waitpid(running[i], NULL, 0);
                        running[i] = 0;
                }
}

static void track(pid_t old, pid_t new) {
        static bool registered;

        if (!registered)
                registered = atexit(kill_running) == 0;
        for (size_t i = 0; i < sizeof(running) / sizeof(running[0]); i++)
                if (running[i] == old) {
                        running[i] = new;
                        return;
                }
}

bool swtpm_available(const char **ret_reason) {
        if (access("/usr/bin/swtpm", X_OK) != 0) {
                *ret_reason = "swtpm is not installed (Debian package swtpm)";
                return false;
        }
        return true;
}

/* Binds port on the loopback (0: any): the port, or -errno. The socket is closed again. */
static int try_port(int port) {
        struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                                    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(addr);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), r = -EADDRNOTAVAIL;

        if (fd < 0)
                return -errno;
        if (bind(fd, (struct sockaddr *) &addr, sizeof(addr)) == 0 &&
            getsockname(fd, (struct sockaddr *) &addr, &len) == 0)
                r = ntohs(addr.sin_port);
        close(fd);
        return r;
}

/* A free port whose successor is free too: tpm2-tss's swtpm TCTI finds the control channel at port + 1. */
static int free_port_pair(void) {
        for (int i = 0; i < 50; i++) {
                int port = try_port(0);

                if (port > 0 && port < 65535 && try_port(port + 1) == port + 1)
                        return port;
        }
        return -EADDRNOTAVAIL;
}

static int connect_port(int port) {
        struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                                    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return -errno;
        if (connect(fd, (struct sockaddr *) &addr, sizeof(addr)) < 0) {
                int r = -errno;

                close(fd);
                return r;
        }
        return fd;
}

static void sleep_ms(long ms) {
        struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

        nanosleep(&t, NULL);
}

int swtpm_start(Swtpm *s, const char *dir) {
        char state[300], server[96], ctrl[96], log[320];

        memset(s, 0, sizeof(*s));
        if (dir)
                snprintf(s->dir, sizeof(s->dir), "%s", dir);
        else {
                snprintf(s->dir, sizeof(s->dir), "/tmp/keyd-swtpm-XXXXXX");
                if (!mkdtemp(s->dir))
                        return -errno;
        }
        s->port = free_port_pair();
        if (s->port < 0)
                return s->port;
        s->ctrl_port = s->port + 1;
        snprintf(state, sizeof(state), "dir=%s", s->dir);
        snprintf(server, sizeof(server), "type=tcp,port=%d,bindaddr=127.0.0.1", s->port);
        snprintf(ctrl, sizeof(ctrl), "type=tcp,port=%d,bindaddr=127.0.0.1", s->ctrl_port);
        snprintf(log, sizeof(log), "file=%s/log,level=20", s->dir);
        snprintf(s->tcti, sizeof(s->tcti), "swtpm:host=127.0.0.1,port=%d", s->port);
        s->pid = fork();
        if (s->pid < 0)
                return -errno;
        if (s->pid == 0) {
                int null = open("/dev/null", O_RDWR);

                /* Not the test's output: a pipe held open by swtpm would outlive a failed test. */
                dup2(null, STDIN_FILENO);
                dup2(null, STDOUT_FILENO);
                dup2(null, STDERR_FILENO);
                execl("/usr/bin/swtpm", "swtpm", "socket", "--tpm2", "--tpmstate", state, "--server", server,
                      "--ctrl", ctrl, "--flags", "not-need-init,startup-clear", "--log", log, (char *) NULL);
                _exit(127);
        }
        track(0, s->pid);
        /* Up when its TPM port accepts; 10 s is far more than it needs. */
        for (int i = 0; i < 1000; i++) {
                int fd = connect_port(s->port);

                if (fd >= 0) {
                        close(fd);
                        return 0;
                }
                if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
                        track(s->pid, 0);
                        s->pid = 0;
                        return -ECHILD;
                }
                sleep_ms(10);
        }
        return -ETIMEDOUT;
}

/* An ESYS context on the swtpm, for the fixture's own commands. */
static int esys_open(Swtpm *s, TSS2_TCTI_CONTEXT **tcti, ESYS_CONTEXT **esys) {
        if (Tss2_TctiLdr_Initialize(s->tcti, tcti) != TSS2_RC_SUCCESS)
                return -EIO;
        if (Esys_Initialize(esys, *tcti, NULL) != TSS2_RC_SUCCESS) {
                Tss2_TctiLdr_Finalize(tcti);
                return -EIO;
        }
        return 0;
}

static void esys_close(TSS2_TCTI_CONTEXT **tcti, ESYS_CONTEXT **esys) {
        Esys_Finalize(esys);
        Tss2_TctiLdr_Finalize(tcti);
}

int swtpm_clear(Swtpm *s) {
        TSS2_TCTI_CONTEXT *tcti = NULL;
        ESYS_CONTEXT *esys = NULL;
        TSS2_RC rc;

        if (esys_open(s, &tcti, &esys) < 0)
                return -EIO;
        rc = Esys_Clear(esys, ESYS_TR_RH_PLATFORM, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE);
        esys_close(&tcti, &esys);
        return rc == TSS2_RC_SUCCESS ? 0 : -EIO;
}

int swtpm_set_hierarchy_auth(Swtpm *s, bool endorsement, const char *auth) {
        TSS2_TCTI_CONTEXT *tcti = NULL;
        ESYS_CONTEXT *esys = NULL;
        TPM2B_AUTH new_auth = { .size = (UINT16) strlen(auth) };
        TSS2_RC rc;

        if (new_auth.size > sizeof(new_auth.buffer))
                return -EINVAL;
        memcpy(new_auth.buffer, auth, new_auth.size);
        if (esys_open(s, &tcti, &esys) < 0)
                return -EIO;
        rc = Esys_HierarchyChangeAuth(esys, endorsement ? ESYS_TR_RH_ENDORSEMENT : ESYS_TR_RH_OWNER,
                                      ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &new_auth);
        esys_close(&tcti, &esys);
        return rc == TSS2_RC_SUCCESS ? 0 : -EIO;
}

int swtpm_lockout(Swtpm *s) {
        TSS2_TCTI_CONTEXT *tcti = NULL;
        ESYS_CONTEXT *esys = NULL;
        TSS2_RC rc;

        if (esys_open(s, &tcti, &esys) < 0)
                return -EIO;
        rc = Esys_DictionaryAttackParameters(esys, ESYS_TR_RH_LOCKOUT, ESYS_TR_PASSWORD, ESYS_TR_NONE,
                                             ESYS_TR_NONE, 0, 7200, 86400);
        esys_close(&tcti, &esys);
        return rc == TSS2_RC_SUCCESS ? 0 : -EIO;
}

int swtpm_stop(Swtpm *s, bool keep) {
        TSS2_TCTI_CONTEXT *tcti = NULL;
        ESYS_CONTEXT *esys = NULL;
        uint32_t command = htonl(SWTPM_CMD_SHUTDOWN), answer;
        int fd, status, r = 0;

        if (s->pid <= 0)
                return -ESRCH;
        if (esys_open(s, &tcti, &esys) == 0) {
                if (Esys_Shutdown(esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_SU_CLEAR) !=
                    TSS2_RC_SUCCESS)
                        r = -EIO;
                esys_close(&tcti, &esys);
        }
        fd = connect_port(s->ctrl_port);
        if (fd >= 0) {
                if (write(fd, &command, sizeof(command)) != sizeof(command) ||
                    read(fd, &answer, sizeof(answer)) != sizeof(answer))
                        r = r ?: -EIO;
                close(fd);
        }
        for (int i = 0; i < 500 && waitpid(s->pid, &status, WNOHANG) == 0; i++)
                sleep_ms(10);
        if (kill(s->pid, 0) == 0) {
                kill(s->pid, SIGKILL);
                waitpid(s->pid, &status, 0);
                r = r ?: -ETIMEDOUT;
        }
        track(s->pid, 0);
        s->pid = 0;
        if (!keep) {
                char command_line[400];

                snprintf(command_line, sizeof(command_line), "rm -rf '%s'", s->dir);
                if (system(command_line) != 0)
                        r = r ?: -EIO;
        }
        return r;
}

long swtpm_logged_commands(const Swtpm *s) {
        char path[300], line[512];
        long n = 0;
        FILE *f;

        snprintf(path, sizeof(path), "%s/log", s->dir);
        f = fopen(path, "r");
        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f))
                if (strstr(line, "SWTPM_IO_Read:"))
                        n++;
        fclose(f);
        return n;
}
