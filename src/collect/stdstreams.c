/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The standard streams of a program that gus runs twice (collect.h):
 * gus's standard input kept so that the second run reads what the first
 * read, and the second run's output kept off the terminal.
 *
 * Both are threads of gus, not processes: the QEMU tracer reaps every
 * child of gus while it runs (it is the subreaper of the program's tree),
 * and a thread dies with gus whatever way gus ends. Neither ever blocks
 * where gus cannot stop it: each waits in poll on its descriptors and on
 * a control pipe that gus closes to stop it.
 *
 * Feeding (COLLECT_INPUT_COPY): every piece read from descriptor 0 is
 * written to the copy before it is written into run 1's pipe, so the copy
 * holds at least what the program read, even when the feeding is cut.
 * The pipe's write end is non-blocking and SIGPIPE is blocked in the
 * thread: a program that closes its standard input or ends makes the
 * write fail with EPIPE, which ends the feeding; one that does not read
 * leaves the pipe full and the thread waiting, until gus stops it when
 * run 1 is over. What gus's input still holds then is left unread: the
 * program did not want it.
 *
 * Capture: the first LIMIT bytes of the program's standard output and
 * error are kept in memory, the rest is read and counted, so the program
 * never waits on a full pipe and gus's memory is bounded. */
#include "collect_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define PIECE (64 * 1024)
/* what the capture still reads once gus has stopped it: a process the
 * run left behind may write on for ever */
#define DRAIN_MAX (16u * 1024 * 1024)

/* ----------------------------------------------------------- feeding --- */
struct collect_feeder {
	pthread_t thread;
	int ctl[2];		/* gus closes ctl[1] to stop the thread */
	int pipe_w;		/* run 1's standard input, gus's end (non-blocking) */
	int copy_w;		/* the copy */
	/* written by the thread, read by gus once it is joined */
	uint64_t copied;
	bool at_end, stopped_reading;
	int copy_errno, read_errno;
};

/* true when gus asked the thread to stop */
static bool stop_asked(const struct pollfd *ctl)
{
	return ctl->revents & (POLLIN | POLLHUP | POLLERR);
}

static void *feed(void *arg)
{
	struct collect_feeder *f = arg;
	sigset_t pipe_set;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	/* a write into a pipe nobody reads fails with EPIPE here, and the
	 * signal stays pending in this thread, which drops it at its end */
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
	unsigned char *buf = malloc(PIECE);
	if (!buf) {
		f->read_errno = ENOMEM;
		return NULL;
	}
	bool copying = true;
	for (;;) {
		struct pollfd p[2] = { { .fd = 0, .events = POLLIN }, { .fd = f->ctl[0], .events = POLLIN } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			f->read_errno = errno;
			break;
		}
		if (stop_asked(&p[1]))
			break;
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		ssize_t n = read(0, buf, PIECE);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			f->read_errno = errno;
			break;
		}
		if (n == 0) {
			f->at_end = true;
			break;
		}
		/* the copy first: it must hold whatever the program gets */
		for (ssize_t done = 0; copying && done < n;) {
			ssize_t w = write(f->copy_w, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				/* a full disk: run 1 is fed all the same, run 2
				 * reads what the copy holds */
				f->copy_errno = w < 0 ? errno : ENOSPC;
				copying = false;
				break;
			}
			done += w;
			f->copied += (uint64_t)w;
		}
		bool stop = false;
		for (ssize_t done = 0; done < n && !stop;) {
			ssize_t w = write(f->pipe_w, buf + done, (size_t)(n - done));
			if (w > 0) {
				done += w;
				continue;
			}
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && errno == EAGAIN) {
				/* the program reads slower than gus: wait for room,
				 * or for gus to stop the feeding */
				struct pollfd q[2] = { { .fd = f->pipe_w, .events = POLLOUT },
						       { .fd = f->ctl[0], .events = POLLIN } };
				if (poll(q, 2, -1) < 0 && errno != EINTR)
					stop = true;
				else if (stop_asked(&q[1]))
					stop = true;
				continue;
			}
			/* EPIPE: the program closed its standard input or ended */
			f->stopped_reading = true;
			stop = true;
		}
		if (stop)
			break;
	}
	free(buf);
	/* the program sees the end of its input */
	close(f->pipe_w);
	f->pipe_w = -1;
	return NULL;
}

/* A file of gus's own for the copy: created in a directory gus makes
 * (0700), both removed at once, so that nothing of it is left on disk
 * whatever way gus ends, and no path of anyone else's is ever touched.
 * *WRITE_FD and *READ_FD are two opens of it (the reader at its start). */
static int make_copy(int *write_fd, int *read_fd, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], path[PATH_MAX + 8];
	if (!tmp || tmp[0] != '/' || strlen(tmp) > PATH_MAX - 32)
		tmp = "/tmp";
	snprintf(dir, sizeof dir, "%s/gus-stdin-XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		snprintf(err, errlen, "cannot make a directory for the copy of the standard input in %s: %s", tmp,
			 strerror(errno));
		return -1;
	}
	snprintf(path, sizeof path, "%s/stdin", dir);
	*write_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	*read_fd = *write_fd >= 0 ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	int e = errno;
	if (*write_fd >= 0)
		unlink(path);
	rmdir(dir);
	if (*read_fd < 0) {
		if (*write_fd >= 0)
			close(*write_fd);
		*write_fd = -1;
		snprintf(err, errlen, "cannot create the copy of the standard input in %s: %s", dir, strerror(e));
		return -1;
	}
	return 0;
}

void collect_input_init(struct collect_input *in)
{
	memset(in, 0, sizeof *in);
	in->kind = COLLECT_INPUT_SHARED;
	in->replay_fd = in->feed_fd = in->copy_fd = -1;
}

static int start_feeding(struct collect_input *in, char *err, size_t errlen)
{
	int p[2] = { -1, -1 };
	struct collect_feeder *f = calloc(1, sizeof *f);
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	f->ctl[0] = f->ctl[1] = -1;
	if (make_copy(&f->copy_w, &in->copy_fd, err, errlen)) {
		free(f);
		return -1;
	}
	if (pipe2(p, O_CLOEXEC) || pipe2(f->ctl, O_CLOEXEC) || fcntl(p[1], F_SETFL, O_NONBLOCK)) {
		snprintf(err, errlen, "cannot make a pipe for the standard input: %s", strerror(errno));
		goto fail;
	}
	/* a larger pipe: fewer wake-ups for a program that reads much
	 * (best effort, the system may refuse) */
	fcntl(p[1], F_SETPIPE_SZ, 1024 * 1024);
	f->pipe_w = p[1];
	int e = pthread_create(&f->thread, NULL, feed, f);
	if (e) {
		snprintf(err, errlen, "cannot start feeding the standard input: %s", strerror(e));
		goto fail;
	}
	in->feed_fd = p[0];
	in->feeder = f;
	in->replay_fd = in->copy_fd;
	in->copy_fd = -1;
	return 0;
fail:
	collect_close_pipe(p);
	collect_close_pipe(f->ctl);
	close(f->copy_w);
	close(in->copy_fd);
	in->copy_fd = -1;
	free(f);
	return -1;
}

int collect_input_prepare(struct collect_input *in, char *err, size_t errlen)
{
	struct stat st;
	collect_input_init(in);
	int fl = fcntl(0, F_GETFL);
	if (fl < 0 || fstat(0, &st) || (fl & O_ACCMODE) == O_WRONLY || S_ISDIR(st.st_mode))
		return 0;	/* SHARED: closed, or nothing to read */
	if (isatty(0)) {
		in->kind = COLLECT_INPUT_TERMINAL;
		/* run 2 must not wait for a second typing of the input */
		in->replay_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		return 0;
	}
	if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3)
		return 0;	/* /dev/null: the same for both runs */
	off_t at = S_ISREG(st.st_mode) ? lseek(0, 0, SEEK_CUR) : -1;
	if (at >= 0) {
		in->kind = COLLECT_INPUT_FILE;
		in->start = (uint64_t)at;
		/* an open of its own, whatever run 1 does to the shared offset
		 * (the magic link reaches a file that was deleted too) */
		struct stat again;
		int fd = open("/proc/self/fd/0", O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && !fstat(fd, &again) && again.st_dev == st.st_dev && again.st_ino == st.st_ino &&
		    lseek(fd, at, SEEK_SET) == at) {
			in->replay_fd = fd;
			in->reopened = true;
		} else if (fd >= 0) {
			close(fd);
		}
		return 0;
	}
	in->kind = COLLECT_INPUT_COPY;
	if (start_feeding(in, err, errlen)) {
		in->kind = COLLECT_INPUT_SHARED;
		return -1;
	}
	return 0;
}

int collect_input_first_fd(const struct collect_input *in)
{
	return in->kind == COLLECT_INPUT_COPY ? in->feed_fd : -1;
}

void collect_input_first_done(struct collect_input *in)
{
	struct collect_feeder *f = in->feeder;
	if (!f)
		return;
	/* gus's end of the program's input: with it closed, a feeding that
	 * waits for room sees the program gone */
	if (in->feed_fd >= 0)
		close(in->feed_fd);
	in->feed_fd = -1;
	close(f->ctl[1]);
	f->ctl[1] = -1;
	pthread_join(f->thread, NULL);
	in->copied = f->copied;
	in->at_end = f->at_end;
	in->stopped_reading = f->stopped_reading;
	in->copy_errno = f->copy_errno;
	in->read_errno = f->read_errno;
	if (f->pipe_w >= 0)
		close(f->pipe_w);
	close(f->ctl[0]);
	close(f->copy_w);
	free(f);
	in->feeder = NULL;
}

int collect_input_replay_fd(struct collect_input *in, char *err, size_t errlen)
{
	switch (in->kind) {
	case COLLECT_INPUT_FILE:
		/* at run 1's offset for each run after it (gus record's run 3
		 * reads it again after run 2) */
		if (in->reopened && lseek(in->replay_fd, (off_t)in->start, SEEK_SET) < 0) {
			snprintf(err, errlen, "cannot read the standard input again from offset %llu: %s",
				 (unsigned long long)in->start, strerror(errno));
			return -2;
		}
		if (in->reopened)
			return in->replay_fd;
		/* no open of its own: the offset run 1 shares is set back */
		if (lseek(0, (off_t)in->start, SEEK_SET) < 0) {
			snprintf(err, errlen, "cannot read the standard input again from offset %llu: %s",
				 (unsigned long long)in->start, strerror(errno));
			return -2;
		}
		return -1;
	case COLLECT_INPUT_COPY:
		if (lseek(in->replay_fd, 0, SEEK_SET) < 0) {
			snprintf(err, errlen, "cannot read the copy of the standard input: %s", strerror(errno));
			return -2;
		}
		return in->replay_fd;
	case COLLECT_INPUT_TERMINAL:
		return in->replay_fd;
	default:
		return -1;
	}
}

void collect_input_close(struct collect_input *in)
{
	collect_input_first_done(in);
	if (in->feed_fd >= 0)
		close(in->feed_fd);
	if (in->replay_fd >= 0)
		close(in->replay_fd);
	if (in->copy_fd >= 0)
		close(in->copy_fd);
	in->feed_fd = in->replay_fd = in->copy_fd = -1;
}

/* ----------------------------------------------------------- capture --- */
struct collect_capturer {
	pthread_t thread;
	int ctl[2];
	int rd[2];		/* the pipes' read ends: stdout, stderr */
	size_t limit;
	struct collect_output_stream *stream;	/* the output's, written by the thread until joined */
};

/* one read of stream I: false at its end (or an error) */
static bool capture_read(struct collect_capturer *c, int i, unsigned char *buf)
{
	struct collect_output_stream *s = &c->stream[i];
	ssize_t n = read(c->rd[i], buf, PIECE);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0) {
		if (n < 0)
			s->read_errno = errno;
		return false;
	}
	s->total += (uint64_t)n;
	size_t keep = s->kept < c->limit ? c->limit - s->kept : 0;
	if (keep > (size_t)n)
		keep = (size_t)n;
	if (keep && !s->data)
		s->data = malloc(c->limit);
	if (keep && s->data) {
		memcpy(s->data + s->kept, buf, keep);
		s->kept += keep;
	}
	return true;
}

static void *capture(void *arg)
{
	struct collect_capturer *c = arg;
	unsigned char *buf = malloc(PIECE);
	bool open_[2] = { true, true };
	if (!buf) {
		c->stream[0].read_errno = c->stream[1].read_errno = ENOMEM;
		return NULL;
	}
	while (open_[0] || open_[1]) {
		struct pollfd p[3] = { { .fd = open_[0] ? c->rd[0] : -1, .events = POLLIN },
				       { .fd = open_[1] ? c->rd[1] : -1, .events = POLLIN },
				       { .fd = c->ctl[0], .events = POLLIN } };
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++)
			if (p[i].revents & (POLLIN | POLLHUP | POLLERR))
				open_[i] = capture_read(c, i, buf);
		if (stop_asked(&p[2])) {
			/* the run is over: what its processes wrote is in the
			 * pipes; a process left behind may write on, so the
			 * reading is bounded */
			for (int i = 0; i < 2; i++) {
				fcntl(c->rd[i], F_SETFL, O_NONBLOCK);
				for (size_t got = 0; open_[i] && got < DRAIN_MAX; got += PIECE) {
					uint64_t before = c->stream[i].total;
					open_[i] = capture_read(c, i, buf);
					if (c->stream[i].total == before)
						break;	/* EAGAIN: nothing more now */
				}
			}
			break;
		}
	}
	free(buf);
	return NULL;
}

int collect_output_start(struct collect_output *o, size_t limit, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	o->stdio = (struct collect_stdio){ -1, -1, -1 };
	struct collect_capturer *c = calloc(1, sizeof *c);
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->ctl[0] = c->ctl[1] = -1;
	c->limit = limit;
	c->stream = o->stream;
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC) || pipe2(c->ctl, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot make pipes for the program's output: %s", strerror(errno));
		goto fail;
	}
	c->rd[0] = po[0];
	c->rd[1] = pe[0];
	int e = pthread_create(&c->thread, NULL, capture, c);
	if (e) {
		snprintf(err, errlen, "cannot start reading the program's output: %s", strerror(e));
		goto fail;
	}
	o->stdio.out = po[1];
	o->stdio.err = pe[1];
	o->cap = c;
	return 0;
fail:
	collect_close_pipe(po);
	collect_close_pipe(pe);
	collect_close_pipe(c->ctl);
	free(c);
	return -1;
}

void collect_output_finish(struct collect_output *o)
{
	struct collect_capturer *c = o->cap;
	if (!c)
		return;	/* never started, or already finished */
	/* gus's write ends: with them closed the pipes end when the run's
	 * processes are gone */
	close(o->stdio.out);
	close(o->stdio.err);
	o->stdio.out = o->stdio.err = -1;
	close(c->ctl[1]);
	pthread_join(c->thread, NULL);
	close(c->ctl[0]);
	close(c->rd[0]);
	close(c->rd[1]);
	free(c);
	o->cap = NULL;
}

void collect_output_free(struct collect_output *o)
{
	collect_output_finish(o);
	for (int i = 0; i < 2; i++) {
		free(o->stream[i].data);
		o->stream[i].data = NULL;
	}
}
