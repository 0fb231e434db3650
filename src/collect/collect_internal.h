/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internals shared by the files of collect/; not for other modules. */
#ifndef GUS_COLLECT_INTERNAL_H
#define GUS_COLLECT_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "collect.h"

/* Fork a child that waits on go[0] until the collector is attached, then
 * execvp's argv; go and ex are created here (close-on-exec), and the
 * parent keeps go[1] and ex[0] only (the others -1). Returns the pid, or -1
 * with errno set; what was opened is left to collect_close_pipe. */
pid_t collect_start_held(char *const argv[], int go[2], int ex[2]);
/* The same with the program's standard streams from IO (NULL: gus's own). */
pid_t collect_start_held_io(char *const argv[], const struct collect_stdio *io, int go[2], int ex[2]);
/* In a forked child before exec: IO's descriptors onto 0, 1 and 2
 * (NULL: nothing); async-signal-safe. -1 with errno when one fails. */
int collect_stdio_apply(const struct collect_stdio *io);

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


/* CLOCK_MONOTONIC in seconds, for collect_result.seconds. */
double collect_now(void);

/* The online CPUs ("0-3,5" in sysfs) in *OUT (malloc'd); their number,
 * or -1 when they cannot be read. */
int collect_online_cpus(int **out);

/* A plan's counting groups attached to one process (count.c): inherited
 * by its threads and children, enabled when it execs, so a held child
 * (collect_start_held) is counted from its first instruction. Used by
 * collect_count and by the sampler, which counts in the same run. */
struct collect_group;
struct perf_thread_map;
struct collect_groups {
	const struct collect_plan *plan;
	struct collect_group *g;
	int n;
	struct perf_thread_map *threads;
};

/* Opens group ONLY_GROUP of PLAN, or every group when -1, on PID. On
 * failure nothing stays open and ERR says which event the kernel refused
 * and what to do (COLLECT_NO_PMU, COLLECT_NO_PERMISSION, COLLECT_BAD_EVENT). */
enum collect_status collect_groups_open(const struct collect_plan *plan, int only_group, pid_t pid,
					struct collect_groups *gs, char *err, size_t errlen);
/* Adds the counts to CS (an unreadable event as uncounted); -1 when CS
 * cannot take them or a group read makes no sense. */
int collect_groups_read(const struct collect_groups *gs, struct td_countset *cs);
/* Safe on a zeroed or already closed GS. */
void collect_groups_close(struct collect_groups *gs);

/* Intel PT of a program already started (held) as PID, for collect_pt_record
 * and for a sampling run that traces too (pt.c): OPEN probes, opens and
 * maps intel_pt and its sideband on every CPU and writes the recording's
 * pt.* meta into D (on failure nothing stays open, "missing.pt" says why,
 * and PROGRAM, the file filters default to, is not run); POLL takes what
 * the rings hold (and a snapshot SIGUSR2 asked for); END, after the
 * program exited, flushes the last of it; CLOSE frees (STATUS not OK:
 * "missing.pt" from ERR). ERR must outlive the session: a failed write
 * later is said there, and FAILED turns true. */
struct collect_pt_session;
struct pollfd;
enum collect_status collect_pt_session_open(const char *program, const struct collect_pt_opts *opts,
					    struct gusdata *d, pid_t pid, struct collect_pt_stats *st,
					    struct collect_pt_session **out, char *err, size_t errlen);
/* the descriptors to poll for its data, at most MAX */
size_t collect_pt_session_fds(const struct collect_pt_session *ps, struct pollfd *pfd, size_t max);
void collect_pt_session_poll(struct collect_pt_session *ps);
bool collect_pt_session_failed(const struct collect_pt_session *ps);
void collect_pt_session_end(struct collect_pt_session *ps);
void collect_pt_session_close(struct collect_pt_session *ps, enum collect_status status);

/* The reading half of collect_qemu_run (qemu.c) on a wire stream already
 * in memory (tests, fuzzing): DATA is handed to the decoder in pieces of
 * at most PIECE bytes (0: as large as the run's reads), records go to
 * O's sink, block counts to O's block callback. 0 for a complete stream
 * (HELLO ... END), else -1 with ERR: malformed, no greeting, ended early,
 * the plugin's error, or the sink's refusal. */
int collect_qemu_decode(const void *data, size_t len, size_t piece, const struct collect_qemu_opts *o,
			struct collect_qemu_stats *st, char *err, size_t errlen);

#endif
