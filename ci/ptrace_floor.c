/* The floor of exact process observation: the smallest tracer that makes
 * the stops rea's keeper needs (TRACEFORK|TRACEVFORK|TRACECLONE|TRACEEXEC,
 * no system-call or exit stops), reads each exec's /proc/PID/cmdline while
 * the process is stopped there, resumes every stop at once (re-injecting
 * signals) and reaps every zombie. No journal, no socket, no sampling.
 * With FLOOR_AWAKE_MS=N in the environment, a SCHED_IDLE thread spins for
 * N ms after each stop, as rea's keeper does (backend-linux/src/awake.rs).
 * Usage: ptrace_floor PROGRAM [ARGS...]   (see bench-ptrace-floor.sh) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static void read_cmdline(pid_t pid) {
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        while (read(fd, buf, sizeof buf) > 0) {}
        close(fd);
    }
}

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static _Atomic long last_stop;
static long awake_ns;

/* Spins while the last stop is recent, naps otherwise (the keeper parks
 * instead; a 200 us nap is close enough for a floor). */
static void *keep_awake(void *unused) {
    (void)unused;
    struct sched_param param = {0};
    if (sched_setscheduler(0, SCHED_IDLE, &param) != 0) return 0;
    for (;;) {
        if (now_ns() - last_stop < awake_ns) continue;
        usleep(200);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *awake = getenv("FLOOR_AWAKE_MS");
    awake_ns = awake ? atol(awake) * 1000000L : 0;

    pid_t child = fork();
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int status;
    waitpid(child, &status, 0);
    long options = PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
                   PTRACE_O_EXITKILL;
    ptrace(PTRACE_SETOPTIONS, child, 0, options);
    pthread_t spinner;
    if (awake_ns > 0) pthread_create(&spinner, 0, keep_awake, 0);
    ptrace(PTRACE_CONT, child, 0, 0);
    int code = 0;
    for (;;) {
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) return code;
        last_stop = now_ns();
        if (!WIFSTOPPED(status)) {
            if (pid == child) code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            continue;
        }
        int event = status >> 16, signal = WSTOPSIG(status);
        if (event == PTRACE_EVENT_EXEC) read_cmdline(pid);
        /* A new child's first stop is SIGSTOP; event stops carry SIGTRAP. */
        long inject = (event || signal == SIGSTOP || signal == SIGTRAP) ? 0 : signal;
        ptrace(PTRACE_CONT, pid, 0, inject);
    }
}
