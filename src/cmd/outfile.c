/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Result files written atomically, shared by the commands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* Output goes to FILE.tmp first and is renamed at the end, so a failed run
 * never leaves a complete-looking result behind. */
int outfile_open(struct outfile *o, const char *path, FILE *dflt)
{
	memset(o, 0, sizeof(*o));
	if (!path) {
		o->f = dflt;
		return 0;
	}
	size_t n = strlen(path) + 16;
	o->tmp = malloc(n);
	if (!o->tmp)
		return -1;
	snprintf(o->tmp, n, "%s.tmp.%d", path, (int)getpid());
	o->path = path;
	if (!(o->f = fopen(o->tmp, "w"))) {
		gus_error("cannot write %s: %s", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

int outfile_close(struct outfile *o, bool ok)
{
	int rc = 0;
	if (!o->path) {
		if (fflush(o->f))
			rc = -1;
		return rc;
	}
	if (ferror(o->f) | fclose(o->f))
		ok = false, rc = -1;
	if (ok && rename(o->tmp, o->path)) {
		gus_error("cannot write %s: %s", o->path, strerror(errno));
		rc = -1;
		ok = false;
	}
	if (!ok) {
		if (rc)
			gus_error("writing %s failed; nothing was written", o->path);
		unlink(o->tmp);
	}
	free(o->tmp);
	return rc;
}

