/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus.data: one SQLite database per recording. Autocommit by default so
 * that whatever was written survives a crash or Ctrl-C; WAL journaling
 * keeps a reader working while the recorder writes. */
#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gusdata.h"

struct gusdata {
	sqlite3 *db;
	char *path;
	bool in_tx;
	bool created;		/* by this process: fold the WAL back in at close */
	char *meta_value;	/* gusdata_meta's last answer */
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

static struct gusdata *gusdata_alloc(const char *path)
{
	struct gusdata *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	return d;
}

int gusdata_create(const char *path, struct gusdata **out, char *err, size_t errlen)
{
	struct stat stt;
	*out = NULL;
	if (stat(path, &stt) == 0) {
		size_t n = strlen(path) + 5;
		char *old = malloc(n);
		if (!old)
			return -1;
		snprintf(old, n, "%s.old", path);
		if (rename(path, old) != 0) {
			gusdata_set_err(err, errlen, "%s: cannot rename to %s: %s", path, old, strerror(errno));
			free(old);
			return -1;
		}
		free(old);
	}
	/* a stale journal of an older file must not be applied to the new one */
	char side[4096];
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);

	struct gusdata *d = gusdata_alloc(path);
	if (!d)
		return -1;
	if (sqlite3_open_v2(path, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		gusdata_set_err(err, errlen, "%s: cannot create: %s", path,
				d->db ? sqlite3_errmsg(d->db) : "out of memory");
		gusdata_close(d);
		return -1;
	}
	char sql[256];
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d;"
		 " PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;",
		 GUSDATA_APPLICATION_ID, GUSDATA_SCHEMA_VERSION);
	if (gusdata_exec(d, sql) || gusdata_exec(d, "BEGIN") || gusdata_exec(d, gusdata_schema) ||
	    gusdata_exec(d, "COMMIT")) {
		gusdata_set_err(err, errlen, "%s: cannot create the schema: %s", path, sqlite3_errmsg(d->db));
		gusdata_close(d);
		unlink(path);
		return -1;
	}
	sqlite3_busy_timeout(d->db, 5000);
	d->created = true;
	gusdata_set_meta_u64(d, "schema_version", GUSDATA_SCHEMA_VERSION);
	*out = d;
	return 0;
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
	sqlite3_busy_timeout(d->db, 5000);
	int app = 0, version = 0;
	/* the first read is where SQLite finds out the file is not a database */
	if (gusdata_pragma_int(d, "PRAGMA application_id", &app) != 0) {
		gusdata_set_err(err, errlen, "%s: not a gus.data recording (%s)", path, sqlite3_errmsg(d->db));
		gusdata_close(d);
		return -1;
	}
	if (app != GUSDATA_APPLICATION_ID) {
		gusdata_set_err(err, errlen, "%s: not a gus.data recording (an SQLite database of another application)",
				path);
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
	static const char *const tables[] = { "meta", "mmaps", "comms", "events", "files", "pt_chunks" };
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		sqlite3_stmt *st;
		int found = 0;
		if (sqlite3_prepare_v2(d->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
				       -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_text(st, 1, tables[i], -1, SQLITE_STATIC);
			found = sqlite3_step(st) == SQLITE_ROW;
			sqlite3_finalize(st);
		}
		if (!found) {
			gusdata_set_err(err, errlen, "%s: damaged gus.data (table %s missing)", path, tables[i]);
			gusdata_close(d);
			return -1;
		}
	}
	*out = d;
	return 0;
}

void gusdata_close(struct gusdata *d)
{
	if (!d)
		return;
	if (d->in_tx)
		gusdata_commit(d);
	/* a finished recording is one self-contained file users can copy */
	if (d->db && d->created)
		gusdata_exec(d, "PRAGMA journal_mode = DELETE");
	if (d->db)
		sqlite3_close_v2(d->db);
	free(d->meta_value);
	free(d->path);
	free(d);
}

const char *gusdata_path(const struct gusdata *d)
{
	return d->path;
}

const char *gusdata_errmsg(struct gusdata *d)
{
	return sqlite3_errmsg(d->db);
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

int gusdata_add_mmap(struct gusdata *d, const struct gusdata_mmap *m)
{
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT INTO mmaps (time, pid, tid, start, len, pgoff, prot,"
					   " flags, filename, build_id) VALUES (?,?,?,?,?,?,?,?,?,?)");
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

int gusdata_foreach_mmap(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_mmap *m), void *ctx)
{
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT time, pid, tid, start, len, pgoff, prot, flags,"
					   " filename, build_id FROM mmaps ORDER BY time, id");
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
