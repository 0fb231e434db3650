/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outpath: where gus may write a file the user named, and how it lands.
 *
 * gus often runs as root, and a path on its command line may name anything:
 * a directory, a device, a file of the user's. The rules (gus-record(1),
 * OUTPUT FILES):
 * - a file is written beside its destination, in a temporary file of its
 *   own (DEST.partial-XXXXXX, created exclusively), and renamed into place
 *   when it is complete; a failure removes the temporary file and leaves
 *   the destination as it was;
 * - a FIFO or a character device (/dev/null, /dev/stdout) is written in
 *   place, as a shell redirection would;
 * - a directory, a socket, a block device or a symbolic link to nothing is
 *   never written, moved or replaced.
 * Which regular files may be replaced is the caller's decision (a
 * recording replaces only a recording, unless forced).
 * The same kinds of path are read only when regular: a file that a
 * recording names is opened with outpath_open_regular, never waited on.
 * No other module is used: recordings (gusdata/) and text outputs (cmd/)
 * build on this. */
#ifndef GUS_OUTPATH_H
#define GUS_OUTPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define OUTPATH_ERRLEN 1024

enum outpath_kind {
	OUTPATH_ABSENT,		/* nothing there: the file will be created */
	OUTPATH_REGULAR,
	OUTPATH_DIRECTORY,
	OUTPATH_FIFO,
	OUTPATH_CHARDEV,
	OUTPATH_OTHER,		/* a socket, a block device */
	OUTPATH_DANGLING,	/* a symbolic link to nothing */
	OUTPATH_UNREADABLE,	/* lstat/stat failed other than ENOENT */
};

/* What PATH is, a symbolic link followed (*VIA_LINK set, may be NULL). */
enum outpath_kind outpath_kind(const char *path, bool *via_link);
/* "a directory", "a FIFO"... for messages */
const char *outpath_kind_name(enum outpath_kind k);

/* A file being written. */
struct outpath_file {
	char *dest;	/* where it lands: the path given, a symbolic link resolved */
	char *tmp;	/* the temporary file, NULL when written in place */
	int fd;		/* open for writing (the temporary file, or DEST in place) */
	mode_t mode;	/* what the landed file gets: the replaced file's mode, else 0666 & ~umask */
};

/* Opens PATH for a text output: absent or a regular file (written beside
 * it, then renamed over it), a FIFO or a character device (in place).
 * Anything else is refused, -1 with ERR naming PATH and what it is. */
int outpath_open(struct outpath_file *f, const char *path, char *err, size_t errlen);
/* Whether outpath_open would take PATH, without creating anything: 0, or
 * -1 with ERR naming PATH and what it is. */
int outpath_check(const char *path, char *err, size_t errlen);
/* The temporary file beside DEST only (a recording: the caller decides
 * what DEST may be); -1 with ERR, e.g. a read-only directory. */
int outpath_open_beside(struct outpath_file *f, const char *dest, char *err, size_t errlen);
/* Lands F: fsync, the mode, rename over DEST (nothing for a file written in
 * place); closes the descriptor. -1 with ERR (F's temporary file removed).
 * F is freed either way. */
int outpath_commit(struct outpath_file *f, char *err, size_t errlen);
/* Removes F's temporary file (never DEST) and frees F. */
void outpath_abort(struct outpath_file *f);

/* An exclusive lock on the directory DEST is in, serialising the writers
 * of one directory while they check and rename (a few milliseconds, not
 * the whole recording): a descriptor to pass to outpath_unlock_dir, or -1
 * where the file system has no such locks (then nothing is serialised). */
int outpath_lock_dir(const char *dest);
void outpath_unlock_dir(int fd);

/* The directory part of PATH ("." when none), malloc'ed. */
char *outpath_dirname(const char *path);

/* Opens PATH for reading when it is a regular file (a symbolic link
 * followed): the one way gus opens a file that an untrusted input names,
 * a recording's objects and the debug files they lead to. Anything else
 * is refused without being waited on or read: a FIFO blocks its open
 * until a writer comes, a device may never end (/dev/zero) or act when
 * opened (a tape rewinds, a watchdog starts), a directory is no file.
 * A descriptor (blocking again, close-on-exec), or -1 with ERR
 * "PATH: not a regular file (a FIFO)" or "PATH: <strerror>" and errno
 * set: ENOENT or ENOTDIR where nothing is there, EINVAL for a file of
 * another kind. */
int outpath_open_regular(const char *path, char *err, size_t errlen);

#endif
