/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outpath: files written beside their destination and renamed into place,
 * and the kinds of path that are never written (outpath.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outpath.h"

static void outpath_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void outpath_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static enum outpath_kind kind_of_mode(mode_t m)
{
	if (S_ISREG(m))
		return OUTPATH_REGULAR;
	if (S_ISDIR(m))
		return OUTPATH_DIRECTORY;
	if (S_ISFIFO(m))
		return OUTPATH_FIFO;
	if (S_ISCHR(m))
		return OUTPATH_CHARDEV;
	return OUTPATH_OTHER;
}

enum outpath_kind outpath_kind(const char *path, bool *via_link)
{
	struct stat st;
	if (via_link)
		*via_link = false;
	if (lstat(path, &st))
		return errno == ENOENT ? OUTPATH_ABSENT : OUTPATH_UNREADABLE;
	if (!S_ISLNK(st.st_mode))
		return kind_of_mode(st.st_mode);
	if (via_link)
		*via_link = true;
	if (stat(path, &st))
		return errno == ENOENT ? OUTPATH_DANGLING : OUTPATH_UNREADABLE;
	return kind_of_mode(st.st_mode);
}

const char *outpath_kind_name(enum outpath_kind k)
{
	switch (k) {
	case OUTPATH_ABSENT: return "absent";
	case OUTPATH_REGULAR: return "a regular file";
	case OUTPATH_DIRECTORY: return "a directory";
	case OUTPATH_FIFO: return "a FIFO";
	case OUTPATH_CHARDEV: return "a character device";
	case OUTPATH_OTHER: return "a socket or block device";
	case OUTPATH_DANGLING: return "a symbolic link to nothing";
	case OUTPATH_UNREADABLE: return "not accessible";
	}
	return "?";
}

char *outpath_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static mode_t default_mode(void)
{
	mode_t mask = umask(022);
	umask(mask);
	return 0666 & ~mask;
}

int outpath_open_beside(struct outpath_file *f, const char *dest, char *err, size_t errlen)
{
	memset(f, 0, sizeof *f);
	f->fd = -1;
	f->mode = default_mode();
	size_t n = strlen(dest) + sizeof ".partial-XXXXXX";
	f->dest = strdup(dest);
	f->tmp = malloc(n);
	if (!f->dest || !f->tmp) {
		outpath_err(err, errlen, "%s: out of memory", dest);
		goto fail;
	}
	snprintf(f->tmp, n, "%s.partial-XXXXXX", dest);
	/* O_EXCL under the hood: never a file that was there */
	f->fd = mkostemp(f->tmp, O_CLOEXEC);
	if (f->fd < 0) {
		char *dir = outpath_dirname(dest);
		int e = errno;
		outpath_err(err, errlen, "%s: cannot create a file in %s%s: %s", dest, dir ? dir : "its directory",
			    e == EACCES || e == EROFS || e == EPERM ? " (a read-only directory?)" : "", strerror(e));
		free(dir);
		goto fail;
	}
	return 0;
fail:
	free(f->dest);
	free(f->tmp);
	memset(f, 0, sizeof *f);
	f->fd = -1;
	return -1;
}

int outpath_open(struct outpath_file *f, const char *path, char *err, size_t errlen)
{
	bool link;
	struct stat st;
	enum outpath_kind k = outpath_kind(path, &link);
	memset(f, 0, sizeof *f);
	f->fd = -1;
	switch (k) {
	case OUTPATH_ABSENT:
		return outpath_open_beside(f, path, err, errlen);
	case OUTPATH_REGULAR: {
		/* through a link: the file it names is replaced, the link stays */
		char *dest = link ? realpath(path, NULL) : strdup(path);
		if (!dest) {
			outpath_err(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		int rc = outpath_open_beside(f, dest, err, errlen);
		free(dest);
		if (!rc && stat(f->dest, &st) == 0)
			f->mode = st.st_mode & 07777;
		return rc;
	}
	case OUTPATH_FIFO:
	case OUTPATH_CHARDEV:
		f->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (f->fd < 0) {
			outpath_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
			return -1;
		}
		f->dest = strdup(path);
		if (!f->dest) {
			close(f->fd);
			f->fd = -1;
			outpath_err(err, errlen, "%s: out of memory", path);
			return -1;
		}
		return 0;
	default:
		return outpath_check(path, err, errlen);
	}
}

int outpath_check(const char *path, char *err, size_t errlen)
{
	enum outpath_kind k = outpath_kind(path, NULL);
	switch (k) {
	case OUTPATH_ABSENT:
	case OUTPATH_REGULAR:
	case OUTPATH_FIFO:
	case OUTPATH_CHARDEV:
		return 0;
	case OUTPATH_DIRECTORY:
		outpath_err(err, errlen, "%s is a directory: gus writes a file, never over or in place of a "
			    "directory (name a file, for example %s/out)", path, path);
		return -1;
	case OUTPATH_UNREADABLE:
		outpath_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	default:
		outpath_err(err, errlen, "%s is %s: gus does not write there", path, outpath_kind_name(k));
		return -1;
	}
}

static void outpath_free(struct outpath_file *f)
{
	free(f->dest);
	free(f->tmp);
	memset(f, 0, sizeof *f);
	f->fd = -1;
}

int outpath_commit(struct outpath_file *f, char *err, size_t errlen)
{
	int rc = 0;
	const char *what = f->tmp ? f->tmp : f->dest;
	if (f->fd >= 0) {
		if (f->tmp && fchmod(f->fd, f->mode)) {
			outpath_err(err, errlen, "%s: %s", what, strerror(errno));
			rc = -1;
		}
		/* a full disk may only show here, or at close */
		if (!rc && f->tmp && fsync(f->fd)) {
			outpath_err(err, errlen, "writing %s: %s", what, strerror(errno));
			rc = -1;
		}
		if (close(f->fd) && !rc) {
			outpath_err(err, errlen, "writing %s: %s", what, strerror(errno));
			rc = -1;
		}
		f->fd = -1;
	}
	if (!rc && f->tmp) {
		if (rename(f->tmp, f->dest)) {
			outpath_err(err, errlen, "cannot rename %s to %s: %s", f->tmp, f->dest, strerror(errno));
			rc = -1;
		} else {
			char *dir = outpath_dirname(f->dest);
			int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
			if (dfd >= 0) {
				fsync(dfd);	/* the rename survives a crash; best effort */
				close(dfd);
			}
			free(dir);
			free(f->tmp);
			f->tmp = NULL;
		}
	}
	if (rc && f->tmp)
		unlink(f->tmp);
	outpath_free(f);
	return rc;
}

void outpath_abort(struct outpath_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->tmp)
		unlink(f->tmp);
	outpath_free(f);
}

int outpath_lock_dir(const char *dest)
{
	char *dir = outpath_dirname(dest);
	if (!dir)
		return -1;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX)) {
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

void outpath_unlock_dir(int fd)
{
	if (fd >= 0)
		close(fd);	/* the lock goes with the last descriptor */
}

int outpath_open_regular(const char *path, char *err, size_t errlen)
{
	struct stat st;
	/* stat first, so that a device is never opened at all; the open
	 * cannot block (O_NONBLOCK) on what replaced the file since, and
	 * fstat judges what was opened */
	bool refused = !stat(path, &st) && !S_ISREG(st.st_mode);
	int fd = -1;
	if (!refused) {
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			int e = errno;
			if (err && errlen)
				snprintf(err, errlen, "%s: %s", path, strerror(e));
			errno = e;
			return -1;
		}
		refused = fstat(fd, &st) || !S_ISREG(st.st_mode);
	}
	if (refused) {
		if (fd >= 0)
			close(fd);
		const char *kind = S_ISDIR(st.st_mode) ? " (a directory)" : S_ISFIFO(st.st_mode) ? " (a FIFO)"
				   : S_ISCHR(st.st_mode) ? " (a character device)"
				   : S_ISBLK(st.st_mode) ? " (a block device)" : S_ISSOCK(st.st_mode) ? " (a socket)" : "";
		if (err && errlen)
			snprintf(err, errlen, "%s: not a regular file%s", path, kind);
		errno = EINVAL;
		return -1;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0 && (flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}
