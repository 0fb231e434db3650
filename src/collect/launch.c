/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Starting, watching and stopping the program a collector measures: the
 * counting session (count.c), PT capture (pt.c) and the QEMU tracer
 * (qemu.c) run it the same way. */
#include "collect_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t fwd_child;
static volatile sig_atomic_t fwd_got;

/* A signal typed at the terminal reaches the whole foreground process
 * group, the program included; one sent to gus alone (kill, a batch
 * system) is passed on, as perf does. */
static void forward_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	fwd_got = sig;
	if (fwd_child > 0 && si->si_code != SI_KERNEL)
		kill(fwd_child, sig);
}

void collect_forward_install(struct collect_forward *f, pid_t child)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	fwd_got = 0;
	fwd_child = child;
	sigaction(SIGINT, &sa, &f->old_int);
	sigaction(SIGTERM, &sa, &f->old_term);
	f->installed = true;
}

void collect_forward_to(pid_t child)
{
	fwd_child = child;
}

int collect_forward_got(void)
{
	return fwd_got;
}

void collect_forward_restore(struct collect_forward *f)
{
	if (f->installed) {
		sigaction(SIGINT, &f->old_int, NULL);
		sigaction(SIGTERM, &f->old_term, NULL);
		f->installed = false;
	}
	fwd_child = 0;
}

void collect_exec_failed(int ex_fd)
{
	int e = errno;
	if (write(ex_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(e == ENOENT ? 127 : 126);
}

int collect_stdio_apply(const struct collect_stdio *io)
{
	if (!io)
		return 0;
	int src[3] = { io->in, io->out, io->err };
	/* each moved above 2 first, so that putting one in place never
	 * replaces another: gus's own 0, 1 or 2 may have been closed, and a
	 * pipe of the caller's then have that number */
	for (int i = 0; i < 3; i++)
		if (src[i] >= 0 && (src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 3)) < 0)
			return -1;
	for (int i = 0; i < 3; i++)
		if (src[i] >= 0 && dup2(src[i], i) < 0)
			return -1;
	return 0;
}

pid_t collect_start_held(char *const argv[], int go[2], int ex[2])
{
	return collect_start_held_io(argv, NULL, go, ex);
}

pid_t collect_start_held_io(char *const argv[], const struct collect_stdio *io, int go[2], int ex[2])
{
	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid > 0) {
		close(go[0]);
		close(ex[1]);
		go[0] = ex[1] = -1;
	}
	if (pid != 0)
		return pid;
	close(go[1]);
	close(ex[0]);
	char c;
	if (read(go[0], &c, 1) != 1)
		_exit(127);	/* gus gave up before starting it */
	signal(SIGPIPE, SIG_DFL);
	if (collect_stdio_apply(io))
		collect_exec_failed(ex[1]);
	execvp(argv[0], argv);
	collect_exec_failed(ex[1]);
}

int collect_release_held(int go[2], int ex[2], const char *prog, int *exec_errno,
			 char *err, size_t errlen)
{
	if (write(go[1], "g", 1) != 1) {
		snprintf(err, errlen, "cannot start %s: %s", prog, strerror(errno));
		return -1;
	}
	close(go[1]);
	go[1] = -1;
	int e = 0;
	ssize_t got;
	do
		got = read(ex[0], &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	/* end of file: the exec succeeded and closed the child's end */
	*exec_errno = got == (ssize_t)sizeof(e) ? e : 0;
	return 0;
}

void collect_kill_reap(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

void collect_close_pipe(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0) {
			close(p[i]);
			p[i] = -1;
		}
}

double collect_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
