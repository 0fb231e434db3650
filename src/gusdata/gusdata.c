/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus.data: one SQLite database per recording. Autocommit by default so
 * that whatever was written survives a crash or Ctrl-C. A new recording
 * is written beside its destination and landed whole (gusdata_finish). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "gusdata.h"
#include "outpath.h"

struct gusdata {
	sqlite3 *db;
	char *path;
	bool in_tx;
	bool created;		/* by gusdata_create: written to FILE.tmp, landed by gusdata_finish */
	bool force;		/* GUSDATA_FORCE */
	struct outpath_file file;	/* the file being written, locked while it is */
	char *meta_value;	/* gusdata_meta's last answer */
	char errbuf[256];	/* gusdata_errmsg's answer */
	char own_error[256];	/* a failure of gus's own, not SQLite's ("": none) */
	int version;		/* schema version of the file */
	sqlite3_stmt *add_sample;	/* kept: thousands of samples per second */
	sqlite3_stmt *add_read;
	sqlite3_stmt *add_stack;
	int have_stacks;	/* table sample_stacks: -1 not known yet */
};

static const char gusdata_schema[] =
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE mmaps (id INTEGER PRIMARY KEY, time INTEGER, pid INTEGER, tid INTEGER,"
	" start INTEGER NOT NULL, len INTEGER NOT NULL, pgoff INTEGER NOT NULL, prot INTEGER,"
	" flags INTEGER, filename TEXT NOT NULL, build_id TEXT);"
	"CREATE TABLE comms (id INTEGER PRIMARY KEY, time INTEGER, pid INTEGER, tid INTEGER,"
	" comm TEXT NOT NULL, exec INTEGER NOT NULL);"
	"CREATE TABLE events (id INTEGER PRIMARY KEY, time INTEGER, cpu INTEGER, pid INTEGER,"
	" tid INTEGER, kind TEXT NOT NULL, a INTEGER, b INTEGER);"
	"CREATE INDEX events_kind ON events (kind);"
	"CREATE TABLE files (name TEXT PRIMARY KEY, build_id TEXT, data BLOB NOT NULL);"
	"CREATE TABLE pt_chunks (id INTEGER PRIMARY KEY, cpu INTEGER NOT NULL, tid INTEGER NOT NULL,"
	" aux_offset INTEGER NOT NULL, time INTEGER, flags INTEGER NOT NULL, data BLOB NOT NULL);"
	"CREATE INDEX pt_chunks_buffer ON pt_chunks (cpu, tid, id);";

/* schema 2: what gus record adds beyond PT (also the upgrade of a file of
 * schema 1 opened for writing) */
static const char gusdata_schema2[] =
	"CREATE TABLE IF NOT EXISTS sample_mmaps (id INTEGER PRIMARY KEY, time INTEGER, pid INTEGER,"
	" tid INTEGER, start INTEGER NOT NULL, len INTEGER NOT NULL, pgoff INTEGER NOT NULL, prot INTEGER,"
	" flags INTEGER, filename TEXT NOT NULL, build_id TEXT);"
	"CREATE TABLE IF NOT EXISTS samples (id INTEGER PRIMARY KEY, time INTEGER, cpu INTEGER, pid INTEGER,"
	" tid INTEGER, ip INTEGER NOT NULL, period INTEGER, user INTEGER, callchain BLOB);"
	"CREATE TABLE IF NOT EXISTS counts (id INTEGER PRIMARY KEY, event TEXT NOT NULL, value REAL,"
	" enabled REAL, running REAL, uncounted TEXT);"
	"CREATE TABLE IF NOT EXISTS regions (id INTEGER PRIMARY KEY, rank INTEGER NOT NULL, kind TEXT NOT NULL,"
	" name TEXT NOT NULL, file TEXT NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL, head INTEGER,"
	" parent INTEGER, samples INTEGER NOT NULL, share REAL NOT NULL);"
	"CREATE TABLE IF NOT EXISTS trace_chunks (id INTEGER PRIMARY KEY, records INTEGER NOT NULL,"
	" data BLOB NOT NULL);"
	"CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, time INTEGER, data BLOB NOT NULL);";

/* schema 3: interval counts (gus record --spire) */
static const char gusdata_schema3[] =
	"CREATE TABLE IF NOT EXISTS interval_counts (id INTEGER PRIMARY KEY, time REAL NOT NULL,"
	" event TEXT NOT NULL, value REAL, enabled REAL, running REAL);";

/* schema 4: objects (build-ids of the regions' files) and where the
 * traced run mapped them */
static const char gusdata_schema4_regions[] = "ALTER TABLE regions ADD COLUMN build_id TEXT;";
static const char gusdata_schema4[] =
	"CREATE TABLE IF NOT EXISTS trace_maps (id INTEGER PRIMARY KEY, proc INTEGER NOT NULL,"
	" object TEXT NOT NULL, build_id TEXT, start INTEGER NOT NULL, len INTEGER NOT NULL,"
	" pgoff INTEGER NOT NULL);";

/* schema 5: the traced run's standard output and error, kept off the
 * terminal (the first bytes, and how many there were) */
static const char gusdata_schema5[] =
	"CREATE TABLE IF NOT EXISTS program_output (run INTEGER NOT NULL, stream TEXT NOT NULL,"
	" bytes INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (run, stream));";

/* schema 6: the samples of the counter groups read at each sample (their
 * deltas since the thread's previous sample of the group), and the
 * per-region count sets made of them or imported */
static const char gusdata_schema6[] =
	"CREATE TABLE IF NOT EXISTS sample_reads (id INTEGER PRIMARY KEY, time INTEGER, cpu INTEGER, pid INTEGER,"
	" tid INTEGER, ip INTEGER NOT NULL, user INTEGER, grp INTEGER NOT NULL, enabled REAL, running REAL,"
	" deltas BLOB NOT NULL);"
	"CREATE TABLE IF NOT EXISTS region_counts (id INTEGER PRIMARY KEY, region INTEGER NOT NULL,"
	" event TEXT NOT NULL, value REAL, enabled REAL, running REAL, samples INTEGER, uncounted TEXT);";

/* the user registers and stack of a sample of --call-graph dwarf, for
 * unwinding at report time: a table of its own (which a reader of a
 * recording without it does without), so that no schema version moves */
static const char gusdata_schema_stacks[] =
	"CREATE TABLE IF NOT EXISTS sample_stacks (sample INTEGER PRIMARY KEY, abi INTEGER NOT NULL,"
	" regs_mask INTEGER NOT NULL, regs BLOB, stack BLOB);";

/* the kernel's functions that the samples' kernel addresses fall in,
 * named from /proc/kallsyms by gus record: a table of its own too */
static const char gusdata_schema_ksyms[] =
	"CREATE TABLE IF NOT EXISTS kernel_symbols (id INTEGER PRIMARY KEY, start INTEGER NOT NULL,"
	" end INTEGER NOT NULL, name TEXT NOT NULL, module TEXT);";

/* whether D has the table NAME (a table of its own, or of a schema) */
static bool has_table(struct gusdata *d, const char *name)
{
	sqlite3_stmt *st;
	bool found = false;
	if (sqlite3_prepare_v2(d->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return found;
}

/* schema 4's column, which an upgrade adds only once */
static bool regions_have_build_id(struct gusdata *d)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->db, "SELECT build_id FROM regions LIMIT 0", -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_finalize(st);
	return true;
}

static void gusdata_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void gusdata_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int gusdata_exec(struct gusdata *d, const char *sql)
{
	return sqlite3_exec(d->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

static void gusdata_free(struct gusdata *d);
static const char *gusdata_column_text(sqlite3_stmt *st, int i);

static struct gusdata *gusdata_alloc(const char *path)
{
	struct gusdata *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->file.fd = -1;
	d->have_stacks = -1;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	return d;
}

/* ------------------------------------------------- where it is written --- */
/* The first 100 bytes of PATH, the SQLite header, into H: how many were
 * read (less for a short file), -1 when it cannot be read or is not a
 * regular file. */
static ssize_t read_header(const char *path, unsigned char h[100])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, h, 100) : -1;
	int e = errno;
	close(fd);
	errno = e;
	return n;
}

/* the header's application id: a big-endian 32-bit number at 68 */
static uint32_t header_app_id(const unsigned char h[100])
{
	return (uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71];
}

bool gusdata_is_recording(const char *path)
{
	unsigned char h[100];
	ssize_t n = read_header(path, h);
	return n >= 72 && !memcmp(h, "SQLite format 3", 16) && header_app_id(h) == GUSDATA_APPLICATION_ID;
}

/* What is at PATH (and PATH.old) may give way to a new recording: nothing,
 * a recording, or with FORCE a regular file. */
static int check_destination(const char *path, bool force, char *err, size_t errlen)
{
	bool link;
	enum outpath_kind k = outpath_kind(path, &link);
	switch (k) {
	case OUTPATH_ABSENT:
		return 0;
	case OUTPATH_REGULAR:
		if (gusdata_is_recording(path) || force)
			break;
		gusdata_set_err(err, errlen,
				"%s exists and is not a gus recording: gus record replaces only an earlier recording "
				"(kept as %s.old); choose another -o, or --force to replace a regular file",
				path, path);
		return -1;
	case OUTPATH_DIRECTORY: {
		/* the example without a doubled slash when PATH ends in one */
		int dirlen = (int)strlen(path);
		while (dirlen > 1 && path[dirlen - 1] == '/')
			dirlen--;
		gusdata_set_err(err, errlen,
				"%s is a directory%s: gus record writes its recording as a file and never moves or "
				"replaces a directory; name a file in it, for example -o %.*s/gus.data",
				path, link ? " (through a symbolic link)" : "", dirlen, path);
		return -1;
	}
	case OUTPATH_UNREADABLE:
		gusdata_set_err(err, errlen, "%s: cannot see what is there: %s", path, strerror(errno));
		return -1;
	default:
		gusdata_set_err(err, errlen, "%s is %s: gus record writes a recording only where there is nothing "
				"or an earlier recording", path, outpath_kind_name(k));
		return -1;
	}
	size_t n = strlen(path) + 5;
	char *old = malloc(n);
	if (!old)
		return -1;
	snprintf(old, n, "%s.old", path);
	k = outpath_kind(old, &link);
	int rc = 0;
	if (k == OUTPATH_REGULAR && !gusdata_is_recording(old) && !force) {
		gusdata_set_err(err, errlen,
				"%s exists and is not a gus recording: it would be replaced when %s is kept as %s; "
				"move it away, choose another -o, or --force to replace a regular file",
				old, path, old);
		rc = -1;
	} else if (k != OUTPATH_ABSENT && k != OUTPATH_REGULAR) {
		gusdata_set_err(err, errlen, "%s is %s: gus record keeps the earlier recording %s there and "
				"never replaces %s; move it away or choose another -o",
				old, outpath_kind_name(k), path, outpath_kind_name(k));
		rc = -1;
	}
	free(old);
	return rc;
}

/* Another gus record writing PATH holds the lock of its PATH.partial-*
 * file: refused, since one of the two recordings would be lost. Stale
 * files of recorders that were killed are left alone (gus report reads
 * them). */
static int check_other_writers(const char *path, char *err, size_t errlen)
{
	char *dir = outpath_dirname(path);
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t blen = strlen(base);
	DIR *dh = dir ? opendir(dir) : NULL;
	int rc = 0;
	if (!dh) {
		free(dir);
		return 0;	/* mkstemp will say what is wrong with the directory */
	}
	struct dirent *e;
	while (!rc && (e = readdir(dh))) {
		if (strncmp(e->d_name, base, blen) || strncmp(e->d_name + blen, ".partial-", 9) ||
		    strlen(e->d_name + blen) != 15)
			continue;
		int fd = openat(dirfd(dh), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK) {
			gusdata_set_err(err, errlen,
					"%s is being written by another gus record (its recording in progress: %s/%s); "
					"wait for it to finish, or choose another -o", path, dir, e->d_name);
			rc = -1;
		}
		close(fd);
	}
	closedir(dh);
	free(dir);
	return rc;
}

int gusdata_create(const char *path, unsigned flags, struct gusdata **out, char *err, size_t errlen)
{
	*out = NULL;
	struct gusdata *d = gusdata_alloc(path);
	if (!d)
		return -1;
	d->force = flags & GUSDATA_FORCE;
	d->file.fd = -1;
	int lock = outpath_lock_dir(path);
	int rc = check_destination(path, d->force, err, errlen);
	if (!rc)
		rc = check_other_writers(path, err, errlen);
	if (!rc)
		rc = outpath_open_beside(&d->file, path, err, errlen);
	/* the writer's mark, held until the recording is in place */
	if (!rc && flock(d->file.fd, LOCK_EX | LOCK_NB)) {
		gusdata_set_err(err, errlen, "%s: cannot lock %s: %s", path, d->file.tmp, strerror(errno));
		outpath_abort(&d->file);
		rc = -1;
	}
	outpath_unlock_dir(lock);
	if (rc) {
		gusdata_free(d);
		return -1;
	}
	d->created = true;
	if (sqlite3_open_v2(d->file.tmp, &d->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		gusdata_set_err(err, errlen, "%s: cannot create: %s", d->file.tmp,
				d->db ? sqlite3_errmsg(d->db) : "out of memory");
		gusdata_discard(d);
		return -1;
	}
	char sql[256];
	/* a rollback journal, not a WAL: a failed write (a full disk) is rolled
	 * back by truncating the file, which frees the space the facts about
	 * it need, and a killed recorder leaves at most a -journal that the
	 * next reader rolls back. No fsync per commit: what was committed
	 * survives the recorder's death; gusdata_finish syncs once. */
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d;"
		 " PRAGMA journal_mode = DELETE; PRAGMA synchronous = OFF;",
		 GUSDATA_APPLICATION_ID, GUSDATA_SCHEMA_VERSION);
	if (gusdata_exec(d, sql) || gusdata_exec(d, "BEGIN") || gusdata_exec(d, gusdata_schema) ||
	    gusdata_exec(d, gusdata_schema2) || gusdata_exec(d, gusdata_schema3) ||
	    gusdata_exec(d, gusdata_schema4_regions) || gusdata_exec(d, gusdata_schema4) ||
	    gusdata_exec(d, gusdata_schema5) || gusdata_exec(d, gusdata_schema6) ||
	    gusdata_exec(d, gusdata_schema_stacks) || gusdata_exec(d, gusdata_schema_ksyms) ||
	    gusdata_exec(d, "COMMIT")) {
		gusdata_set_err(err, errlen, "%s: cannot create the schema: %s", d->file.tmp, gusdata_errmsg(d));
		gusdata_discard(d);
		return -1;
	}
	sqlite3_busy_timeout(d->db, 5000);
	d->version = GUSDATA_SCHEMA_VERSION;
	gusdata_set_meta_u64(d, "schema_version", GUSDATA_SCHEMA_VERSION);
	*out = d;
	return 0;
}

const char *gusdata_file_path(const struct gusdata *d)
{
	return d->created && d->file.tmp ? d->file.tmp : d->path;
}

/* SQLite's side files of the file being written */
static void remove_side_files(const char *db)
{
	static const char *const sides[] = { "-wal", "-shm", "-journal" };
	char side[PATH_MAX + 16];
	for (size_t i = 0; i < sizeof sides / sizeof *sides; i++) {
		snprintf(side, sizeof side, "%s%s", db, sides[i]);
		unlink(side);
	}
}

/* One self-contained file: every transaction ended, no side files. */
static int close_self_contained(struct gusdata *d, char *err, size_t errlen)
{
	if (d->add_sample) {
		sqlite3_finalize(d->add_sample);
		d->add_sample = NULL;
	}
	if (d->add_read) {
		sqlite3_finalize(d->add_read);
		d->add_read = NULL;
	}
	if (d->add_stack) {
		sqlite3_finalize(d->add_stack);
		d->add_stack = NULL;
	}
	if (d->in_tx && gusdata_commit(d)) {
		gusdata_set_err(err, errlen, "%s: the last writes failed: %s", d->file.tmp, gusdata_errmsg(d));
		return -1;
	}
	int rc = sqlite3_close(d->db);
	if (rc != SQLITE_OK) {
		gusdata_set_err(err, errlen, "%s: cannot close: %s", d->file.tmp, sqlite3_errmsg(d->db));
		return -1;
	}
	d->db = NULL;
	char side[PATH_MAX + 16];
	snprintf(side, sizeof side, "%s-journal", d->file.tmp);
	if (access(side, F_OK) == 0) {
		gusdata_set_err(err, errlen, "%s: a journal was left behind (%s)", d->file.tmp, side);
		return -1;
	}
	return 0;
}

/* The earlier recording at PATH kept as PATH.old, with PATH a valid
 * recording at every instant: a second name (hard link) of it beside,
 * renamed over PATH.old, before the caller renames the new one over PATH.
 * A kill in between leaves PATH the earlier recording (and at worst the
 * extra name, PATH.old-link-*). Where the file system has no hard links,
 * the earlier one is renamed to PATH.old (a moment without PATH, as
 * before). -1 with ERR. */
static int keep_earlier(const char *path, char *err, size_t errlen)
{
	size_t n = strlen(path) + 48;
	char *old = malloc(n), *second = malloc(n);
	int rc = -1;
	if (!old || !second) {
		gusdata_set_err(err, errlen, "%s: out of memory", path);
		goto out;
	}
	snprintf(old, n, "%s.old", path);
	int e = 0;
	for (unsigned i = 0; i < 100; i++) {
		snprintf(second, n, "%s.old-link-%ld-%u", path, (long)getpid(), i);
		if (link(path, second) == 0) {
			e = 0;
			break;
		}
		e = errno;
		if (e != EEXIST)
			break;
	}
	if (!e) {
		if (rename(second, old) == 0) {
			rc = 0;
		} else {
			gusdata_set_err(err, errlen, "cannot rename %s to %s: %s", second, old, strerror(errno));
			unlink(second);	/* the second name gus made; the earlier recording keeps PATH */
		}
	} else if (e == EPERM || e == EOPNOTSUPP || e == EMLINK || e == EXDEV) {
		if (rename(path, old) == 0)
			rc = 0;
		else
			gusdata_set_err(err, errlen, "cannot rename %s to %s: %s", path, old, strerror(errno));
	} else {
		gusdata_set_err(err, errlen, "cannot keep %s as %s: %s", path, old, strerror(e));
	}
out:
	free(old);
	free(second);
	return rc;
}

int gusdata_finish(struct gusdata *d, char *err, size_t errlen)
{
	if (!d->created) {
		gusdata_close(d);
		return 0;
	}
	if (close_self_contained(d, err, errlen)) {
		gusdata_discard(d);
		return -1;
	}
	int lock = outpath_lock_dir(d->path);
	/* what is there now may not be what was there when the run began */
	int rc = check_destination(d->path, d->force, err, errlen);
	if (rc) {
		size_t l = strlen(err);
		snprintf(err + l, errlen - l, "; the recording stays in %s", d->file.tmp);
		close(d->file.fd);	/* the file stays, unlocked: gus report reads it */
		d->file.fd = -1;
		free(d->file.tmp);
		d->file.tmp = NULL;
		outpath_unlock_dir(lock);
		gusdata_free(d);
		return -1;
	}
	if (gusdata_is_recording(d->path) && keep_earlier(d->path, err, errlen)) {
		size_t l = strlen(err);
		snprintf(err + l, errlen - l, "; the recording stays in %s", d->file.tmp);
		rc = -1;
	}
	if (!rc) {
		rc = outpath_commit(&d->file, err, errlen);
	} else {
		close(d->file.fd);
		d->file.fd = -1;
		free(d->file.tmp);
		d->file.tmp = NULL;
	}
	outpath_unlock_dir(lock);
	gusdata_free(d);
	return rc;
}

void gusdata_discard(struct gusdata *d)
{
	if (!d)
		return;
	if (d->add_sample)
		sqlite3_finalize(d->add_sample);
	d->add_sample = NULL;
	if (d->add_read)
		sqlite3_finalize(d->add_read);
	d->add_read = NULL;
	if (d->add_stack)
		sqlite3_finalize(d->add_stack);
	d->add_stack = NULL;
	if (d->db)
		sqlite3_close_v2(d->db);
	d->db = NULL;
	if (d->created && d->file.tmp) {
		remove_side_files(d->file.tmp);
		outpath_abort(&d->file);
	}
	gusdata_free(d);
}

static int gusdata_pragma_int(struct gusdata *d, const char *pragma, int *value)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->db, pragma, -1, &st, NULL) != SQLITE_OK)
		return -1;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*value = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* What the first 100 bytes say, before SQLite's own words ("file is not
 * a database", "disk image is malformed") would: empty, not SQLite,
 * another application's, or cut short. */
static int check_header(const char *path, const struct stat *stt, char *err, size_t errlen)
{
	unsigned char h[100];
	if (stt->st_size == 0) {
		gusdata_set_err(err, errlen, "%s is empty: not a recording (nothing was ever written to it)", path);
		return -1;
	}
	ssize_t n = read_header(path, h);
	if (n < 0) {
		gusdata_set_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (n < (ssize_t)sizeof h || memcmp(h, "SQLite format 3", 16)) {
		gusdata_set_err(err, errlen, "%s: not a gus.data recording (not an SQLite database%s)", path,
				n < (ssize_t)sizeof h && !memcmp(h, "SQLite format 3", (size_t)n < 16 ? (size_t)n : 16)
					? ", or a recording cut short" : "");
		return -1;
	}
	if (header_app_id(h) != GUSDATA_APPLICATION_ID) {
		gusdata_set_err(err, errlen, "%s: not a gus.data recording (an SQLite database of another application)",
				path);
		return -1;
	}
	/* the page count in the header is valid when its change counter
	 * matches; a file shorter than that was cut (unless a write was
	 * interrupted: then the journal says how it was) */
	uint32_t page = (uint32_t)h[16] << 8 | h[17];
	uint64_t page_size = page == 1 ? 65536 : page;
	uint32_t pages = (uint32_t)h[28] << 24 | (uint32_t)h[29] << 16 | (uint32_t)h[30] << 8 | h[31];
	char journal[PATH_MAX + 16];
	snprintf(journal, sizeof journal, "%s-journal", path);
	if (!memcmp(h + 24, h + 92, 4) && pages && (uint64_t)stt->st_size < pages * page_size &&
	    access(journal, F_OK) != 0) {
		gusdata_set_err(err, errlen, "%s is damaged: %lld of its %llu bytes are there (a copy cut short, or a "
				"full disk?)", path, (long long)stt->st_size,
				(unsigned long long)(pages * page_size));
		return -1;
	}
	return 0;
}

/* A recording is a file people send each other: SQLite is told not to
 * trust its schema (no function with side effects in it, no writes to
 * sqlite_master, no triggers or views run) before anything is read. */
static void harden_connection(sqlite3 *db)
{
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
#endif
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, NULL);
}

/* The indexes gus creates (sqlite_autoindex_* are SQLite's own, for the
 * primary keys) and the definitions of the two tables gus writes while it
 * reads (its cache in results, the schema upgrade's mark in meta): what
 * SQLite keeps of gusdata_schema's statements. */
static const char *const gus_indexes[][2] = {
	{ "events_kind", "CREATE INDEX events_kind ON events (kind)" },
	{ "pt_chunks_buffer", "CREATE INDEX pt_chunks_buffer ON pt_chunks (cpu, tid, id)" },
};
static const char *const gus_written_tables[][2] = {
	{ "meta", "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)" },
	{ "results", "CREATE TABLE results (key TEXT PRIMARY KEY, time INTEGER, data BLOB NOT NULL)" },
};

/* Whether the schema of D is one gus wrote: no trigger or view (gus makes
 * none; one could run SQL when the report writes its cache or hang a
 * read), no index gus did not make (an expression index computes on
 * every write), no generated column (computed on every read), and the
 * tables gus writes as gus defines them (a default value is computed on
 * every write). -1 with ERR naming what was found. */
static bool table_has_generated_column(struct gusdata *d, const char *table)
{
	sqlite3_stmt *st;
	bool found = false;
	if (sqlite3_prepare_v2(d->db, "SELECT 1 FROM pragma_table_xinfo(?) WHERE hidden != 0", -1, &st, NULL) !=
	    SQLITE_OK)
		return true;	/* cannot tell: as if it had one */
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	found = sqlite3_step(st) != SQLITE_DONE;
	sqlite3_finalize(st);
	return found;
}

static int check_schema_is_gus(struct gusdata *d, const char *path, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->db, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid", -1, &st,
			       NULL) != SQLITE_OK) {
		gusdata_set_err(err, errlen, "%s is damaged (%s)", path, sqlite3_errmsg(d->db));
		return -1;
	}
	int rc = 0, step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = gusdata_column_text(st, 0), *name = gusdata_column_text(st, 1);
		if (!type || !name) {	/* SQLite never writes such a row */
			gusdata_set_err(err, errlen, "%s is damaged (a schema entry without a type or name)", path);
			rc = -1;
			break;
		}
		const char *sql = (const char *)sqlite3_column_text(st, 3);
		const char *why = NULL;
		if (!strcmp(type, "trigger") || !strcmp(type, "view")) {
			why = "that gus did not create (gus makes none)";
		} else if (!strcmp(type, "index")) {
			bool known = !sql && !strncmp(name, "sqlite_autoindex_", 17);
			for (size_t i = 0; !known && i < sizeof gus_indexes / sizeof *gus_indexes; i++)
				known = !strcmp(name, gus_indexes[i][0]) && sql && !strcmp(sql, gus_indexes[i][1]);
			if (!known)
				why = "that gus did not create";
		} else if (!strcmp(type, "table")) {
			for (size_t i = 0; i < sizeof gus_written_tables / sizeof *gus_written_tables; i++)
				if (!strcmp(name, gus_written_tables[i][0]) &&
				    (!sql || strcmp(sql, gus_written_tables[i][1])))
					why = "defined otherwise than gus defines it";
			if (!why && table_has_generated_column(d, name))
				why = "with a generated column, which gus never makes";
		}
		if (why) {
			/* NAME is the file's: gus's messages escape what they print */
			gusdata_set_err(err, errlen,
					"%s: refused: its schema holds the %s '%.64s' %s; a recording gus wrote holds "
					"none, so this file was made or changed by something else, and gus will not run "
					"what it carries", path, type, name, why);
			rc = -1;
		}
	}
	if (!rc && step != SQLITE_DONE) {
		gusdata_set_err(err, errlen, "%s is damaged (%s)", path, sqlite3_errmsg(d->db));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

int gusdata_open(const char *path, bool writable, struct gusdata **out, char *err, size_t errlen)
{
	struct stat stt;
	*out = NULL;
	if (stat(path, &stt) != 0) {
		gusdata_set_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(stt.st_mode)) {
		gusdata_set_err(err, errlen, "%s: not a regular file", path);
		return -1;
	}
	if (check_header(path, &stt, err, errlen))
		return -1;
	struct gusdata *d = gusdata_alloc(path);
	if (!d)
		return -1;
	int flags = writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
	if (sqlite3_open_v2(path, &d->db, flags, NULL) != SQLITE_OK) {
		gusdata_set_err(err, errlen, "%s: cannot open: %s", path,
				d->db ? sqlite3_errmsg(d->db) : "out of memory");
		gusdata_close(d);
		return -1;
	}
	harden_connection(d->db);
	sqlite3_busy_timeout(d->db, 5000);
	int app = 0, version = 0;
	/* the first read is where SQLite finds out the file is not a database */
	if (gusdata_pragma_int(d, "PRAGMA application_id", &app) != 0) {
		if (sqlite3_extended_errcode(d->db) == SQLITE_READONLY_ROLLBACK)
			gusdata_set_err(err, errlen, "%s: its writer was stopped in the middle of a write (%s-journal "
					"is left); it can be read once that write is rolled back, which needs write "
					"access to the file and its directory", path, path);
		else
			gusdata_set_err(err, errlen, "%s is damaged (%s)", path, gusdata_errmsg(d));
		gusdata_close(d);
		return -1;
	}
	if (app != GUSDATA_APPLICATION_ID) {
		gusdata_set_err(err, errlen, "%s: not a gus.data recording (an SQLite database of another application)",
				path);
		gusdata_close(d);
		return -1;
	}
	if (check_schema_is_gus(d, path, err, errlen)) {
		gusdata_close(d);
		return -1;
	}
	if (gusdata_pragma_int(d, "PRAGMA user_version", &version) != 0 || version < 1) {
		gusdata_set_err(err, errlen, "%s: damaged gus.data (no schema version)", path);
		gusdata_close(d);
		return -1;
	}
	if (version > GUSDATA_SCHEMA_VERSION) {
		gusdata_set_err(err, errlen, "%s: schema version %d is newer than this gus reads (%d): use a newer gus",
				path, version, GUSDATA_SCHEMA_VERSION);
		gusdata_close(d);
		return -1;
	}
	/* every table this version reads must be there */
	static const char *const tables[] = { "meta", "mmaps", "comms", "events", "files", "pt_chunks",
					      "sample_mmaps", "samples", "counts", "regions", "trace_chunks",
					      "results", "interval_counts", "trace_maps", "program_output", "sample_reads",
					      "region_counts" };
	size_t ntables = version >= 6 ? 17 : version >= 5 ? 15 : version >= 4 ? 14 : version >= 3 ? 13
			 : version >= 2 ? 12 : 6;
	for (size_t i = 0; i < ntables; i++) {
		if (!has_table(d, tables[i])) {
			gusdata_set_err(err, errlen, "%s: damaged gus.data (table %s missing)", path, tables[i]);
			gusdata_close(d);
			return -1;
		}
	}
	d->version = version;
	if (version < GUSDATA_SCHEMA_VERSION && writable) {
		char sql[64];
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d;", GUSDATA_SCHEMA_VERSION);
		if (gusdata_exec(d, "BEGIN") || gusdata_exec(d, gusdata_schema2) || gusdata_exec(d, gusdata_schema3) ||
		    (!regions_have_build_id(d) && gusdata_exec(d, gusdata_schema4_regions)) ||
		    gusdata_exec(d, gusdata_schema4) || gusdata_exec(d, gusdata_schema5) ||
		    gusdata_exec(d, gusdata_schema6) || gusdata_exec(d, gusdata_schema_stacks) ||
		    gusdata_exec(d, gusdata_schema_ksyms) || gusdata_exec(d, sql) ||
		    gusdata_exec(d, "COMMIT")) {
			gusdata_set_err(err, errlen, "%s: cannot upgrade schema %d to %d: %s", path, version,
					GUSDATA_SCHEMA_VERSION, sqlite3_errmsg(d->db));
			gusdata_close(d);
			return -1;
		}
		d->version = GUSDATA_SCHEMA_VERSION;
		gusdata_set_meta_u64(d, "schema_version", GUSDATA_SCHEMA_VERSION);
	}
	*out = d;
	return 0;
}

int gusdata_schema_version(const struct gusdata *d)
{
	return d->version;
}

static void gusdata_free(struct gusdata *d)
{
	if (d->file.fd >= 0)
		close(d->file.fd);
	free(d->file.dest);
	free(d->file.tmp);
	free(d->meta_value);
	free(d->path);
	free(d);
}

void gusdata_close(struct gusdata *d)
{
	if (!d)
		return;
	/* a recording that was never finished is not kept */
	if (d->created) {
		gusdata_discard(d);
		return;
	}
	if (d->add_sample)
		sqlite3_finalize(d->add_sample);
	if (d->add_read)
		sqlite3_finalize(d->add_read);
	if (d->add_stack)
		sqlite3_finalize(d->add_stack);
	if (d->in_tx)
		gusdata_commit(d);
	if (d->db)
		sqlite3_close_v2(d->db);
	gusdata_free(d);
}

const char *gusdata_path(const struct gusdata *d)
{
	return d->path;
}

const char *gusdata_errmsg(struct gusdata *d)
{
	if (!d->db)
		return "not open";
	if (d->own_error[0])
		return d->own_error;
	int code = sqlite3_errcode(d->db), sys = sqlite3_system_errno(d->db);
	/* SQLite says "database or disk is full" and "disk I/O error": the
	 * system's own word is what a user can act on */
	if (code == SQLITE_FULL)
		sys = sys ? sys : ENOSPC;
	else if ((code & 0xff) != SQLITE_IOERR)
		return sqlite3_errmsg(d->db);
	if (!sys)
		return sqlite3_errmsg(d->db);
	snprintf(d->errbuf, sizeof d->errbuf, "%s (%s)", strerror(sys), sqlite3_errmsg(d->db));
	return d->errbuf;
}

int gusdata_begin(struct gusdata *d)
{
	if (d->in_tx)
		return -1;
	if (gusdata_exec(d, "BEGIN"))
		return -1;
	d->in_tx = true;
	return 0;
}

int gusdata_commit(struct gusdata *d)
{
	if (!d->in_tx)
		return -1;
	d->in_tx = false;
	return gusdata_exec(d, "COMMIT");
}

/* ------------------------------------------------------------------ */
/* Statements are prepared per call: recording writes are few per second
 * apart from AUX chunks, whose cost is the blob copy. */
static sqlite3_stmt *gusdata_prepare(struct gusdata *d, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

static int gusdata_step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static void gusdata_bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	/* SQLite integers are signed 64-bit: addresses above 2^63 keep their bits */
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

static uint64_t gusdata_column_u64(sqlite3_stmt *st, int i)
{
	return (uint64_t)sqlite3_column_int64(st, i);
}

static const char *gusdata_column_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

int gusdata_set_meta(struct gusdata *d, const char *key, const char *value)
{
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value ? value : "", -1, SQLITE_STATIC);
	return gusdata_step_done(st);
}

int gusdata_set_meta_u64(struct gusdata *d, const char *key, uint64_t value)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)value);
	return gusdata_set_meta(d, key, buf);
}

const char *gusdata_meta(struct gusdata *d, const char *key)
{
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT value FROM meta WHERE key = ?");
	free(d->meta_value);
	d->meta_value = NULL;
	if (!st)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = gusdata_column_text(st, 0);
		d->meta_value = strdup(v ? v : "");
	}
	sqlite3_finalize(st);
	return d->meta_value;
}

int gusdata_foreach_meta(struct gusdata *d, int (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT key, value FROM meta ORDER BY key");
	if (!st)
		return -1;
	int rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = gusdata_column_text(st, 0), *v = gusdata_column_text(st, 1);
		if (k && v && (rc = fn(ctx, k, v)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

bool gusdata_meta_u64(struct gusdata *d, const char *key, uint64_t *value)
{
	const char *v = gusdata_meta(d, key);
	if (!v || !*v)
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 0);
	if (errno || *end)
		return false;
	*value = x;
	return true;
}

static int add_mmap_to(struct gusdata *d, const char *table, const struct gusdata_mmap *m)
{
	char sql[256];
	snprintf(sql, sizeof(sql), "INSERT INTO %s (time, pid, tid, start, len, pgoff, prot,"
		 " flags, filename, build_id) VALUES (?,?,?,?,?,?,?,?,?,?)", table);
	sqlite3_stmt *st = gusdata_prepare(d, sql);
	if (!st)
		return -1;
	gusdata_bind_u64(st, 1, m->time);
	sqlite3_bind_int(st, 2, m->pid);
	sqlite3_bind_int(st, 3, m->tid);
	gusdata_bind_u64(st, 4, m->start);
	gusdata_bind_u64(st, 5, m->len);
	gusdata_bind_u64(st, 6, m->pgoff);
	sqlite3_bind_int64(st, 7, m->prot);
	sqlite3_bind_int64(st, 8, m->flags);
	sqlite3_bind_text(st, 9, m->filename ? m->filename : "", -1, SQLITE_STATIC);
	if (m->build_id)
		sqlite3_bind_text(st, 10, m->build_id, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 10);
	return gusdata_step_done(st);
}

int gusdata_add_mmap(struct gusdata *d, const struct gusdata_mmap *m)
{
	return add_mmap_to(d, "mmaps", m);
}

int gusdata_add_sample_mmap(struct gusdata *d, const struct gusdata_mmap *m)
{
	return add_mmap_to(d, "sample_mmaps", m);
}

static int foreach_mmap_of(struct gusdata *d, const char *table,
			   int (*fn)(void *ctx, const struct gusdata_mmap *m), void *ctx)
{
	char sql[256];
	snprintf(sql, sizeof(sql), "SELECT time, pid, tid, start, len, pgoff, prot, flags,"
		 " filename, build_id FROM %s ORDER BY time, id", table);
	sqlite3_stmt *st = gusdata_prepare(d, sql);
	if (!st)
		return -1;
	int rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct gusdata_mmap m = {
			.time = gusdata_column_u64(st, 0),
			.pid = sqlite3_column_int(st, 1),
			.tid = sqlite3_column_int(st, 2),
			.start = gusdata_column_u64(st, 3),
			.len = gusdata_column_u64(st, 4),
			.pgoff = gusdata_column_u64(st, 5),
			.prot = (uint32_t)sqlite3_column_int64(st, 6),
			.flags = (uint32_t)sqlite3_column_int64(st, 7),
			.filename = gusdata_column_text(st, 8),
			.build_id = gusdata_column_text(st, 9),
		};
		if (!m.filename)
			m.filename = "";
		rc = fn(ctx, &m);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

int gusdata_foreach_mmap(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_mmap *m), void *ctx)
{
	return foreach_mmap_of(d, "mmaps", fn, ctx);
}

int gusdata_foreach_sample_mmap(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_mmap *m),
				void *ctx)
{
	return d->version < 2 ? 0 : foreach_mmap_of(d, "sample_mmaps", fn, ctx);
}

int gusdata_add_comm(struct gusdata *d, uint64_t time, int pid, int tid, const char *comm, bool exec)
{
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT INTO comms (time, pid, tid, comm, exec) VALUES (?,?,?,?,?)");
	if (!st)
		return -1;
	gusdata_bind_u64(st, 1, time);
	sqlite3_bind_int(st, 2, pid);
	sqlite3_bind_int(st, 3, tid);
	sqlite3_bind_text(st, 4, comm ? comm : "", -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, exec);
	return gusdata_step_done(st);
}

int gusdata_add_event(struct gusdata *d, uint64_t time, int cpu, int pid, int tid, const char *kind,
		      uint64_t a, uint64_t b)
{
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT INTO events (time, cpu, pid, tid, kind, a, b)"
					   " VALUES (?,?,?,?,?,?,?)");
	if (!st)
		return -1;
	gusdata_bind_u64(st, 1, time);
	sqlite3_bind_int(st, 2, cpu);
	sqlite3_bind_int(st, 3, pid);
	sqlite3_bind_int(st, 4, tid);
	sqlite3_bind_text(st, 5, kind, -1, SQLITE_STATIC);
	gusdata_bind_u64(st, 6, a);
	gusdata_bind_u64(st, 7, b);
	return gusdata_step_done(st);
}

int gusdata_foreach_event(struct gusdata *d, const char *kind,
			  int (*fn)(void *ctx, const struct gusdata_event *e), void *ctx)
{
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT time, cpu, pid, tid, kind, a, b FROM events"
					   " WHERE ?1 IS NULL OR kind = ?1 ORDER BY time, id");
	if (!st)
		return -1;
	if (kind)
		sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	int rc = 0, s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *k = sqlite3_column_text(st, 4);
		struct gusdata_event e = { .time = gusdata_column_u64(st, 0), .cpu = sqlite3_column_int(st, 1),
					   .pid = sqlite3_column_int(st, 2), .tid = sqlite3_column_int(st, 3),
					   .kind = k ? (const char *)k : "", .a = gusdata_column_u64(st, 5),
					   .b = gusdata_column_u64(st, 6) };
		rc = fn(ctx, &e);
		if (rc)
			break;
	}
	if (!rc && s != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

int gusdata_event_totals(struct gusdata *d, const char *kind, uint64_t *count, uint64_t *sum_a)
{
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT count(*), total(a) FROM events WHERE kind = ?");
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	int rc = -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*count = gusdata_column_u64(st, 0);
		*sum_a = (uint64_t)sqlite3_column_double(st, 1);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int gusdata_add_file(struct gusdata *d, const char *name, const char *build_id, const void *data, size_t n)
{
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT OR REPLACE INTO files (name, build_id, data) VALUES (?,?,?)");
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (build_id)
		sqlite3_bind_text(st, 2, build_id, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_blob64(st, 3, data ? data : "", n, SQLITE_STATIC);
	return gusdata_step_done(st);
}

void *gusdata_file(struct gusdata *d, const char *name, size_t *n)
{
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT data FROM files WHERE name = ?");
	void *copy = NULL;
	*n = 0;
	if (!st)
		return NULL;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		copy = malloc(len ? len : 1);
		if (copy) {
			if (len)
				memcpy(copy, blob, len);
			*n = len;
		}
	}
	sqlite3_finalize(st);
	return copy;
}

int gusdata_add_chunk(struct gusdata *d, const struct gusdata_chunk *c)
{
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT INTO pt_chunks (cpu, tid, aux_offset, time, flags, data)"
					   " VALUES (?,?,?,?,?,?)");
	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, c->cpu);
	sqlite3_bind_int(st, 2, c->tid);
	gusdata_bind_u64(st, 3, c->aux_offset);
	gusdata_bind_u64(st, 4, c->time);
	sqlite3_bind_int64(st, 5, c->flags);
	sqlite3_bind_blob64(st, 6, c->data ? (const void *)c->data : "", c->size, SQLITE_STATIC);
	return gusdata_step_done(st);
}

int gusdata_chunk_buffers(struct gusdata *d, int **cpu, int **tid, size_t *n)
{
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT cpu, tid FROM pt_chunks GROUP BY cpu, tid ORDER BY cpu, tid");
	*cpu = *tid = NULL;
	*n = 0;
	if (!st)
		return -1;
	size_t cap = 0;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			int *c2 = realloc(*cpu, cap * sizeof(int));
			if (c2)
				*cpu = c2;
			int *t2 = realloc(*tid, cap * sizeof(int));
			if (t2)
				*tid = t2;
			if (!c2 || !t2) {
				sqlite3_finalize(st);
				return -1;
			}
		}
		(*cpu)[*n] = sqlite3_column_int(st, 0);
		(*tid)[*n] = sqlite3_column_int(st, 1);
		(*n)++;
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : -1;
}

int gusdata_foreach_chunk(struct gusdata *d, int cpu, int tid,
			  int (*fn)(void *ctx, const struct gusdata_chunk *c), void *ctx)
{
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT id, aux_offset, time, flags, data FROM pt_chunks"
					   " WHERE cpu = ? AND tid = ? ORDER BY id");
	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, cpu);
	sqlite3_bind_int(st, 2, tid);
	int rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct gusdata_chunk c = {
			.id = sqlite3_column_int64(st, 0),
			.cpu = cpu,
			.tid = tid,
			.aux_offset = gusdata_column_u64(st, 1),
			.time = gusdata_column_u64(st, 2),
			.flags = (uint32_t)sqlite3_column_int64(st, 3),
			.data = sqlite3_column_blob(st, 4),
			.size = (size_t)sqlite3_column_bytes(st, 4),
		};
		rc = fn(ctx, &c);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

/* ------------------------------------------------------------ samples --- */
int gusdata_add_sample(struct gusdata *d, const struct gusdata_sample *s)
{
	if (!d->add_sample &&
	    !(d->add_sample = gusdata_prepare(d, "INSERT INTO samples (time, cpu, pid, tid, ip, period, user,"
					      " callchain) VALUES (?,?,?,?,?,?,?,?)")))
		return -1;
	sqlite3_stmt *st = d->add_sample;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	gusdata_bind_u64(st, 1, s->time);
	sqlite3_bind_int(st, 2, s->cpu);
	sqlite3_bind_int(st, 3, s->pid);
	sqlite3_bind_int(st, 4, s->tid);
	gusdata_bind_u64(st, 5, s->ip);
	gusdata_bind_u64(st, 6, s->period);
	sqlite3_bind_int(st, 7, s->user);
	/* host-order u64s: a recording is read on the machine kind that made it */
	if (s->ncallchain)
		sqlite3_bind_blob64(st, 8, s->callchain, s->ncallchain * sizeof(uint64_t), SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		return -1;
	if (!s->regs_abi && !s->nstack)
		return 0;
	if (!d->add_stack &&
	    !(d->add_stack = gusdata_prepare(d, "INSERT INTO sample_stacks (sample, abi, regs_mask, regs, stack)"
						" VALUES (?,?,?,?,?)")))
		return -1;
	st = d->add_stack;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	sqlite3_bind_int64(st, 1, sqlite3_last_insert_rowid(d->db));
	gusdata_bind_u64(st, 2, s->regs_abi);
	gusdata_bind_u64(st, 3, s->regs_mask);
	if (s->nregs)
		sqlite3_bind_blob64(st, 4, s->regs, s->nregs * sizeof(uint64_t), SQLITE_STATIC);
	if (s->nstack)
		sqlite3_bind_blob64(st, 5, s->stack, s->nstack, SQLITE_STATIC);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
}

int gusdata_add_sample_read(struct gusdata *d, const struct gusdata_sample *s)
{
	if (!d->add_read && !(d->add_read = gusdata_prepare(d, "INSERT INTO sample_reads (time, cpu, pid, tid, ip, user,"
								  " grp, enabled, running, deltas)"
								  " VALUES (?,?,?,?,?,?,?,?,?,?)")))
		return -1;
	sqlite3_stmt *st = d->add_read;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	gusdata_bind_u64(st, 1, s->time);
	sqlite3_bind_int(st, 2, s->cpu);
	sqlite3_bind_int(st, 3, s->pid);
	sqlite3_bind_int(st, 4, s->tid);
	gusdata_bind_u64(st, 5, s->ip);
	sqlite3_bind_int(st, 6, s->user);
	sqlite3_bind_int(st, 7, s->read_group);
	sqlite3_bind_double(st, 8, s->read_enabled);
	sqlite3_bind_double(st, 9, s->read_running);
	/* host-order doubles, as the call chains */
	sqlite3_bind_blob64(st, 10, s->read, s->nread * sizeof(double), SQLITE_STATIC);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
}

int gusdata_foreach_sample_read(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_sample *s), void *ctx)
{
	if (d->version < 6)
		return 0;
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT time, cpu, pid, tid, ip, user, grp, enabled, running, deltas"
					   " FROM sample_reads ORDER BY id");
	if (!st)
		return -1;
	int rc = 0, step;
	double *reads = NULL;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct gusdata_sample s = {
			.time = gusdata_column_u64(st, 0),
			.cpu = sqlite3_column_int(st, 1),
			.pid = sqlite3_column_int(st, 2),
			.tid = sqlite3_column_int(st, 3),
			.ip = gusdata_column_u64(st, 4),
			.user = sqlite3_column_int(st, 5) != 0,
			.read_group = sqlite3_column_int(st, 6),
			.read_enabled = sqlite3_column_double(st, 7),
			.read_running = sqlite3_column_double(st, 8),
		};
		const void *rb = sqlite3_column_blob(st, 9);
		size_t rbytes = rb ? (size_t)sqlite3_column_bytes(st, 9) : 0;
		if (rbytes < sizeof(double))
			continue;
		/* the blob may be unaligned */
		free(reads);
		if (!(reads = malloc(rbytes))) {
			rc = -1;
			break;
		}
		memcpy(reads, rb, rbytes);
		s.read = reads;
		s.nread = rbytes / sizeof(double);
		rc = fn(ctx, &s);
		if (rc)
			break;
	}
	free(reads);
	if (!rc && step != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

int gusdata_foreach_sample(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_sample *s), void *ctx)
{
	if (d->version < 2)
		return 0;
	if (d->have_stacks < 0)
		d->have_stacks = has_table(d, "sample_stacks");
	sqlite3_stmt *st = gusdata_prepare(d, d->have_stacks
					   ? "SELECT time, cpu, pid, tid, ip, period, user, callchain, abi, regs_mask,"
					     " regs, stack FROM samples LEFT JOIN sample_stacks ON sample = samples.id"
					     " ORDER BY samples.id"
					   : "SELECT time, cpu, pid, tid, ip, period, user, callchain"
					     " FROM samples ORDER BY id");
	if (!st)
		return -1;
	int rc = 0, step;
	uint64_t *chain = NULL, *regs = NULL;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct gusdata_sample s = {
			.time = gusdata_column_u64(st, 0),
			.cpu = sqlite3_column_int(st, 1),
			.pid = sqlite3_column_int(st, 2),
			.tid = sqlite3_column_int(st, 3),
			.ip = gusdata_column_u64(st, 4),
			.period = gusdata_column_u64(st, 5),
			.user = sqlite3_column_int(st, 6) != 0,
		};
		const void *blob = sqlite3_column_blob(st, 7);
		size_t bytes = (size_t)sqlite3_column_bytes(st, 7);
		if (blob && bytes >= sizeof(uint64_t)) {
			/* the blob may be unaligned */
			free(chain);
			chain = malloc(bytes);
			if (!chain) {
				rc = -1;
				break;
			}
			memcpy(chain, blob, bytes);
			s.callchain = chain;
			s.ncallchain = bytes / sizeof(uint64_t);
		}
		if (d->have_stacks && sqlite3_column_type(st, 8) != SQLITE_NULL) {
			/* untrusted: the unwinder bounds every read by these sizes */
			s.regs_abi = gusdata_column_u64(st, 8);
			s.regs_mask = gusdata_column_u64(st, 9);
			const void *rb = sqlite3_column_blob(st, 10);
			size_t rbytes = rb ? (size_t)sqlite3_column_bytes(st, 10) : 0;
			if (rbytes >= sizeof(uint64_t)) {
				free(regs);
				if (!(regs = malloc(rbytes))) {
					rc = -1;
					break;
				}
				memcpy(regs, rb, rbytes);
				s.regs = regs;
				s.nregs = rbytes / sizeof(uint64_t);
			}
			s.stack = sqlite3_column_blob(st, 11);
			s.nstack = s.stack ? (size_t)sqlite3_column_bytes(st, 11) : 0;
		}
		rc = fn(ctx, &s);
		if (rc)
			break;
	}
	free(chain);
	free(regs);
	if (!rc && step != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

int gusdata_add_kernel_symbol(struct gusdata *d, const struct gusdata_kernel_symbol *k)
{
	/* a recording opened for writing has the table (created or upgraded) */
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT INTO kernel_symbols (start, end, name, module) VALUES (?,?,?,?)");
	if (!st)
		return -1;
	gusdata_bind_u64(st, 1, k->start);
	gusdata_bind_u64(st, 2, k->end);
	sqlite3_bind_text(st, 3, k->name, -1, SQLITE_STATIC);
	if (k->module && *k->module)
		sqlite3_bind_text(st, 4, k->module, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

int gusdata_foreach_kernel_symbol(struct gusdata *d,
				  int (*fn)(void *ctx, const struct gusdata_kernel_symbol *k), void *ctx)
{
	if (!has_table(d, "kernel_symbols"))
		return 0;
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT start, end, name, module FROM kernel_symbols ORDER BY id");
	if (!st)
		return -1;
	int rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = gusdata_column_text(st, 2), *module = gusdata_column_text(st, 3);
		struct gusdata_kernel_symbol k = {
			.start = gusdata_column_u64(st, 0),
			.end = gusdata_column_u64(st, 1),
			.name = name ? name : "",
			.module = module ? module : "",
		};
		if ((rc = fn(ctx, &k)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

static uint64_t count_rows(struct gusdata *d, const char *sql)
{
	uint64_t n = 0;
	if (d->version < 2)
		return 0;
	sqlite3_stmt *st = gusdata_prepare(d, sql);
	if (!st)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = gusdata_column_u64(st, 0);
	sqlite3_finalize(st);
	return n;
}

uint64_t gusdata_sample_count(struct gusdata *d)
{
	return count_rows(d, "SELECT count(*) FROM samples");
}

/* ------------------------------------------------------------- counts --- */
int gusdata_add_count(struct gusdata *d, const struct gusdata_count *c)
{
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT INTO counts (event, value, enabled, running, uncounted)"
					   " VALUES (?,?,?,?,?)");
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, c->event, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, c->value);
	sqlite3_bind_double(st, 3, c->enabled);
	sqlite3_bind_double(st, 4, c->running);
	if (c->uncounted)
		sqlite3_bind_text(st, 5, c->uncounted, -1, SQLITE_STATIC);
	return gusdata_step_done(st);
}

int gusdata_foreach_count(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_count *c), void *ctx)
{
	if (d->version < 2)
		return 0;
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT event, value, enabled, running, uncounted FROM counts"
					   " ORDER BY id");
	if (!st)
		return -1;
	int rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct gusdata_count c = {
			.event = gusdata_column_text(st, 0),
			.value = sqlite3_column_double(st, 1),
			.enabled = sqlite3_column_double(st, 2),
			.running = sqlite3_column_double(st, 3),
			.uncounted = gusdata_column_text(st, 4),
		};
		if (!c.event)
			continue;
		rc = fn(ctx, &c);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

/* ------------------------------------------------------ region counts --- */
int gusdata_add_region_count(struct gusdata *d, const struct gusdata_region_count *c)
{
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT INTO region_counts (region, event, value, enabled, running,"
					   " samples, uncounted) VALUES (?,?,?,?,?,?,?)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, c->region);
	sqlite3_bind_text(st, 2, c->event, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 3, c->value);
	sqlite3_bind_double(st, 4, c->enabled);
	sqlite3_bind_double(st, 5, c->running);
	gusdata_bind_u64(st, 6, c->samples);
	if (c->uncounted)
		sqlite3_bind_text(st, 7, c->uncounted, -1, SQLITE_STATIC);
	return gusdata_step_done(st);
}

int gusdata_foreach_region_count(struct gusdata *d,
				 int (*fn)(void *ctx, const struct gusdata_region_count *c), void *ctx)
{
	if (d->version < 6)
		return 0;
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT region, event, value, enabled, running, samples, uncounted"
					   " FROM region_counts ORDER BY region, id");
	if (!st)
		return -1;
	int rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct gusdata_region_count c = {
			.region = sqlite3_column_int64(st, 0),
			.event = gusdata_column_text(st, 1),
			.value = sqlite3_column_double(st, 2),
			.enabled = sqlite3_column_double(st, 3),
			.running = sqlite3_column_double(st, 4),
			.samples = gusdata_column_u64(st, 5),
			.uncounted = gusdata_column_text(st, 6),
		};
		if (!c.event)
			continue;
		rc = fn(ctx, &c);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

/* ---------------------------------------------------- interval counts --- */
int gusdata_add_interval_count(struct gusdata *d, const struct gusdata_interval_count *c)
{
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT INTO interval_counts (time, event, value, enabled, running)"
					   " VALUES (?,?,?,?,?)");
	if (!st)
		return -1;
	sqlite3_bind_double(st, 1, c->time);
	sqlite3_bind_text(st, 2, c->event, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 3, c->value);
	sqlite3_bind_double(st, 4, c->enabled);
	sqlite3_bind_double(st, 5, c->running);
	return gusdata_step_done(st);
}

int gusdata_foreach_interval_count(struct gusdata *d,
				   int (*fn)(void *ctx, const struct gusdata_interval_count *c), void *ctx)
{
	if (d->version < 3)
		return 0;
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT time, event, value, enabled, running FROM interval_counts"
					   " ORDER BY id");
	if (!st)
		return -1;
	int rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct gusdata_interval_count c = {
			.time = sqlite3_column_double(st, 0),
			.event = gusdata_column_text(st, 1),
			.value = sqlite3_column_double(st, 2),
			.enabled = sqlite3_column_double(st, 3),
			.running = sqlite3_column_double(st, 4),
		};
		if (!c.event)
			continue;
		rc = fn(ctx, &c);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

/* --------------------------------------------------------- trace maps --- */
int gusdata_add_trace_map(struct gusdata *d, const struct gusdata_trace_map *m)
{
	if (d->version < 4)
		return 0;
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT INTO trace_maps (proc, object, build_id, start, len, pgoff)"
					   " VALUES (?,?,?,?,?,?)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, m->proc);
	sqlite3_bind_text(st, 2, m->object, -1, SQLITE_STATIC);
	if (m->build_id && m->build_id[0])
		sqlite3_bind_text(st, 3, m->build_id, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	gusdata_bind_u64(st, 4, m->start);
	gusdata_bind_u64(st, 5, m->len);
	gusdata_bind_u64(st, 6, m->pgoff);
	return gusdata_step_done(st);
}

int gusdata_foreach_trace_map(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_trace_map *m), void *ctx)
{
	if (d->version < 4)
		return 0;
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT proc, object, build_id, start, len, pgoff FROM trace_maps"
					   " ORDER BY id");
	if (!st)
		return -1;
	int rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct gusdata_trace_map m = {
			.proc = sqlite3_column_int64(st, 0),
			.object = gusdata_column_text(st, 1),
			.build_id = gusdata_column_text(st, 2),
			.start = gusdata_column_u64(st, 3),
			.len = gusdata_column_u64(st, 4),
			.pgoff = gusdata_column_u64(st, 5),
		};
		if (!m.object)
			continue;
		if ((rc = fn(ctx, &m)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

/* ------------------------------------------------------------ regions --- */
int gusdata_add_region(struct gusdata *d, struct gusdata_region *r)
{
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT INTO regions (rank, kind, name, file, start, end, head,"
					   " parent, samples, share, build_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, r->rank);
	sqlite3_bind_text(st, 2, r->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, r->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->file, -1, SQLITE_STATIC);
	gusdata_bind_u64(st, 5, r->start);
	gusdata_bind_u64(st, 6, r->end);
	gusdata_bind_u64(st, 7, r->head);
	sqlite3_bind_int64(st, 8, r->parent);
	gusdata_bind_u64(st, 9, r->samples);
	sqlite3_bind_double(st, 10, r->share);
	if (r->build_id && r->build_id[0])
		sqlite3_bind_text(st, 11, r->build_id, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 11);
	if (gusdata_step_done(st))
		return -1;
	r->id = sqlite3_last_insert_rowid(d->db);
	return 0;
}

int gusdata_foreach_region(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_region *r), void *ctx)
{
	if (d->version < 2)
		return 0;
	sqlite3_stmt *st = gusdata_prepare(d, d->version >= 4 ? "SELECT id, rank, kind, name, file, start, end, head,"
					   " parent, samples, share, build_id FROM regions ORDER BY rank, id"
					   : "SELECT id, rank, kind, name, file, start, end, head, parent,"
					   " samples, share, NULL FROM regions ORDER BY rank, id");
	if (!st)
		return -1;
	int rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct gusdata_region r = {
			.id = sqlite3_column_int64(st, 0),
			.rank = sqlite3_column_int(st, 1),
			.kind = gusdata_column_text(st, 2),
			.name = gusdata_column_text(st, 3),
			.file = gusdata_column_text(st, 4),
			.start = gusdata_column_u64(st, 5),
			.end = gusdata_column_u64(st, 6),
			.head = gusdata_column_u64(st, 7),
			.parent = sqlite3_column_int64(st, 8),
			.samples = gusdata_column_u64(st, 9),
			.share = sqlite3_column_double(st, 10),
			.build_id = gusdata_column_text(st, 11),
		};
		if (!r.kind || !r.name || !r.file)
			continue;
		rc = fn(ctx, &r);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

/* -------------------------------------------------------------- trace --- */
#define TRACE_CHUNK_RECORDS 65536

struct gusdata_trace_writer {
	struct gusdata *d;
	struct stream_insn *buf;
	size_t n;
	bool failed;
};

struct gusdata_trace_writer *gusdata_trace_writer_new(struct gusdata *d)
{
	struct gusdata_trace_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->d = d;
	w->buf = malloc(TRACE_CHUNK_RECORDS * sizeof(*w->buf));
	if (!w->buf) {
		free(w);
		return NULL;
	}
	return w;
}

static int trace_flush(struct gusdata_trace_writer *w)
{
	if (!w->n || w->failed)
		return w->failed ? -1 : 0;
	uint8_t *p;
	size_t len;
	if (gusdata_trace_encode(w->buf, w->n, &p, &len)) {
		w->failed = true;
		return -1;
	}
	/* a disk filled by the trace would leave no room for the facts a
	 * recording ends with (what was stored, what is missing, that the
	 * run ended): the trace stops while GUSDATA_TRACE_RESERVE is free */
	struct statvfs fs;
	if (w->d->file.fd >= 0 && !fstatvfs(w->d->file.fd, &fs) &&
	    (uint64_t)fs.f_bavail * fs.f_frsize < (uint64_t)len + GUSDATA_TRACE_RESERVE) {
		snprintf(w->d->own_error, sizeof w->d->own_error,
			 "%s (under %u KiB would be left on its file system, kept for the recording's own facts)",
			 strerror(ENOSPC), GUSDATA_TRACE_RESERVE / 1024);
		free(p);
		w->n = 0;
		w->failed = true;
		return -1;
	}
	sqlite3_stmt *st = gusdata_prepare(w->d, "INSERT INTO trace_chunks (records, data) VALUES (?, ?)");
	int rc = -1;
	if (st) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)w->n);
		sqlite3_bind_blob64(st, 2, p, len, SQLITE_STATIC);
		rc = gusdata_step_done(st);
	}
	free(p);
	w->n = 0;
	if (rc)
		w->failed = true;
	return rc;
}

int gusdata_trace_write(struct gusdata_trace_writer *w, const struct stream_insn *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		w->buf[w->n++] = v[i];
		if (w->n == TRACE_CHUNK_RECORDS && trace_flush(w))
			return -1;
	}
	return w->failed ? -1 : 0;
}

int gusdata_trace_writer_close(struct gusdata_trace_writer *w)
{
	if (!w)
		return 0;
	int rc = trace_flush(w);
	free(w->buf);
	free(w);
	return rc;
}

uint64_t gusdata_chunk_bytes(struct gusdata *d)
{
	return count_rows(d, "SELECT total(length(data)) FROM pt_chunks");
}

uint64_t gusdata_trace_records(struct gusdata *d)
{
	return count_rows(d, "SELECT total(records) FROM trace_chunks");
}

int gusdata_trace_read(struct gusdata *d, stream_sink sink, void *ctx, uint64_t *damaged, char *err,
		       size_t errlen)
{
	*damaged = 0;
	if (d->version < 2)
		return 0;
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT id, records, data FROM trace_chunks ORDER BY id");
	if (!st) {
		gusdata_set_err(err, errlen, "%s: %s", d->path, sqlite3_errmsg(d->db));
		return -1;
	}
	int rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		sqlite3_int64 records = sqlite3_column_int64(st, 1);
		const uint8_t *p = sqlite3_column_blob(st, 2);
		size_t len = (size_t)sqlite3_column_bytes(st, 2);
		if (records < 0 || records > TRACE_CHUNK_RECORDS) {
			if (!(*damaged)++)
				gusdata_set_err(err, errlen, "%s: trace chunk %lld: %lld records is not a chunk's size",
						d->path, (long long)id, (long long)records);
			continue;
		}
		rc = gusdata_trace_decode(p, len, (uint64_t)records, sink, ctx);
		if (rc == -1) {
			if (!(*damaged)++)
				gusdata_set_err(err, errlen, "%s: trace chunk %lld is damaged", d->path, (long long)id);
			rc = 0;
			continue;
		}
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE) {
		gusdata_set_err(err, errlen, "%s: reading the trace: %s", d->path, sqlite3_errmsg(d->db));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

/* ------------------------------------------------------------ results --- */
int gusdata_put_result(struct gusdata *d, const char *key, const void *data, size_t n)
{
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT OR REPLACE INTO results (key, time, data)"
					   " VALUES (?, strftime('%s','now'), ?)");
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_blob64(st, 2, data ? data : "", n, SQLITE_STATIC);
	return gusdata_step_done(st);
}

int gusdata_add_output(struct gusdata *d, int run, const char *stream, const void *data, size_t n,
		       uint64_t total)
{
	if (d->version < 5)
		return 0;
	if (n > INT_MAX)
		n = INT_MAX;	/* SQLite's bound of a blob; the caller keeps far less */
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT OR REPLACE INTO program_output (run, stream, bytes, data)"
					   " VALUES (?,?,?,?)");
	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, run);
	sqlite3_bind_text(st, 2, stream, -1, SQLITE_STATIC);
	gusdata_bind_u64(st, 3, total);
	sqlite3_bind_blob(st, 4, n ? data : "", (int)n, SQLITE_STATIC);
	return gusdata_step_done(st);
}

int gusdata_get_output(struct gusdata *d, int run, const char *stream, void **data, size_t *n, uint64_t *total)
{
	*data = NULL;
	*n = 0;
	*total = 0;
	if (d->version < 5)
		return 1;
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT bytes, data FROM program_output WHERE run = ? AND stream = ?");
	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, run);
	sqlite3_bind_text(st, 2, stream, -1, SQLITE_STATIC);
	int rc = 1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		const void *blob = sqlite3_column_blob(st, 1);
		*data = malloc(len ? len : 1);
		rc = *data ? 0 : -1;
		if (*data && len)
			memcpy(*data, blob, len);
		if (*data)
			*n = len;
		*total = (uint64_t)sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return rc;
}

void *gusdata_get_result(struct gusdata *d, const char *key, size_t *n)
{
	*n = 0;
	if (d->version < 2)
		return NULL;
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT data FROM results WHERE key = ?");
	void *copy = NULL;
	if (!st)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		copy = malloc(len ? len : 1);
		if (copy) {
			if (len)
				memcpy(copy, blob, len);
			*n = len;
		}
	}
	sqlite3_finalize(st);
	return copy;
}
