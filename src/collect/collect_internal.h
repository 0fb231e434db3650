/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internals shared by the files of collect/; not for other modules. */
#ifndef GUS_COLLECT_INTERNAL_H
#define GUS_COLLECT_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* Fork a child that waits on go[0] until the collector is attached, then
 * execvp's argv; go and ex are created here (close-on-exec), and the
 * parent keeps go[1] and ex[0] only (the others -1). Returns the pid, or -1
 * with errno set; what was opened is left to collect_close_pipe. */
pid_t collect_start_held(char *const argv[], int go[2], int ex[2]);

/* Let the held child exec (go[1] is closed here) and wait for the verdict
 * on ex[0]. Returns -1 with err saying so when the child cannot be told;
 * otherwise 0, *exec_errno the errno of a failed exec of PROG or 0 when it
 * runs. */
int collect_release_held(int go[2], int ex[2], const char *prog, int *exec_errno,
			 char *err, size_t errlen);

/* In a forked child whose exec failed: errno goes back through EX_FD and
 * the child exits 127 (not found) or 126, as a shell would. */
void collect_exec_failed(int ex_fd) __attribute__((noreturn));

/* SIGINT and SIGTERM while a program runs: recorded, and passed on to it
 * unless the kernel sent them (see launch.c). One session at a time. */
struct collect_forward {
	struct sigaction old_int, old_term;
	bool installed;
};

/* CHILD may be 0 when the child is forked later: collect_forward_to. */
void collect_forward_install(struct collect_forward *f, pid_t child);
void collect_forward_to(pid_t child);
/* The last signal caught since install, 0 when none. */
int collect_forward_got(void);
/* Puts back the old handlers if installed; stops forwarding either way. */
void collect_forward_restore(struct collect_forward *f);

/* Kill a child that must not run on unwatched (pid <= 0: none) and reap it. */
void collect_kill_reap(pid_t pid);

/* Close both ends of a pipe that are still open, marking them -1. */
void collect_close_pipe(int p[2]);

/* kernel.perf_event_paranoid, -1 when unreadable: permission errors name
 * it, since it decides what may be measured (count.c). */
int collect_perf_paranoid(void);

/* CLOCK_MONOTONIC in seconds, for collect_result.seconds. */
double collect_now(void);

#endif
