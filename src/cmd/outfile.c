/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Result files of the commands, written by the rules of outpath.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "gusdata.h"
#include "outpath.h"

int outfile_check(const char *path)
{
	char err[OUTPATH_ERRLEN];
	if (!path)
		return 0;
	/* a shell redirection would overwrite a recording too; gus keeps
	 * what gus record made from its own text outputs */
	if (gusdata_is_recording(path)) {
		gus_error("%s is a gus recording: a text output does not replace it (name another file)", path);
		return -1;
	}
	if (outpath_check(path, err, sizeof(err))) {
		gus_error("%s", err);
		return -1;
	}
	return 0;
}

int outfile_open(struct outfile *o, const char *path, FILE *dflt)
{
	char err[OUTPATH_ERRLEN];
	memset(o, 0, sizeof(*o));
	if (!path) {
		o->f = dflt;
		return 0;
	}
	if (outfile_check(path))
		return -1;
	o->file = calloc(1, sizeof(*o->file));
	if (!o->file)
		return -1;
	if (outpath_open(o->file, path, err, sizeof(err))) {
		gus_error("%s", err);
		free(o->file);
		o->file = NULL;
		return -1;
	}
	/* stdio on a copy of the descriptor: outpath_commit syncs and closes
	 * the original after stdio has flushed */
	int fd = dup(o->file->fd);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		gus_error("cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		outpath_abort(o->file);
		free(o->file);
		o->file = NULL;
		return -1;
	}
	o->path = path;
	return 0;
}

int outfile_close(struct outfile *o, bool ok)
{
	char err[OUTPATH_ERRLEN];
	int rc = 0;
	if (!o->path) {
		if (o->f == stdout || o->f == stderr)
			return gus_flush_std(o->f);
		return fflush(o->f) ? -1 : 0;
	}
	/* a full disk shows here first; errno is what the flush found (a
	 * stream an earlier flush failed on has none: what the caller saw,
	 * else EIO) */
	int werr = 0;
	errno = 0;
	if (fflush(o->f))
		werr = errno ? errno : EIO;
	else if (ferror(o->f))
		werr = o->write_errno ? o->write_errno : EIO;
	errno = 0;
	if (fclose(o->f) && !werr)
		werr = errno ? errno : EIO;
	if (werr) {
		/* written in place (a FIFO, a device), some of it may have gone */
		gus_error("%s: %s%s", o->path, strerror(werr), o->file->tmp ? "; nothing was written" : "");
		ok = false;
		rc = -1;
	}
	if (ok) {
		if (outpath_commit(o->file, err, sizeof(err))) {
			gus_error("%s; nothing was written", err);
			rc = -1;
		}
	} else {
		outpath_abort(o->file);
	}
	free(o->file);
	o->file = NULL;
	return rc;
}
