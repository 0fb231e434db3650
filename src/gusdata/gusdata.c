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
	int version;		/* schema version of the file */
	sqlite3_stmt *add_sample;	/* kept: thousands of samples per second */
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
	    gusdata_exec(d, gusdata_schema2) || gusdata_exec(d, gusdata_schema3) || gusdata_exec(d, "COMMIT")) {
		gusdata_set_err(err, errlen, "%s: cannot create the schema: %s", path, sqlite3_errmsg(d->db));
		gusdata_close(d);
		unlink(path);
		return -1;
	}
	sqlite3_busy_timeout(d->db, 5000);
	d->created = true;
	d->version = GUSDATA_SCHEMA_VERSION;
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
	static const char *const tables[] = { "meta", "mmaps", "comms", "events", "files", "pt_chunks",
					      "sample_mmaps", "samples", "counts", "regions", "trace_chunks",
					      "results", "interval_counts" };
	size_t ntables = version >= 3 ? 13 : version >= 2 ? 12 : 6;
	for (size_t i = 0; i < ntables; i++) {
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
	d->version = version;
	if (version < GUSDATA_SCHEMA_VERSION && writable) {
		char sql[64];
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d;", GUSDATA_SCHEMA_VERSION);
		if (gusdata_exec(d, "BEGIN") || gusdata_exec(d, gusdata_schema2) || gusdata_exec(d, gusdata_schema3) ||
		    gusdata_exec(d, sql) ||
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

void gusdata_close(struct gusdata *d)
{
	if (!d)
		return;
	if (d->add_sample)
		sqlite3_finalize(d->add_sample);
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
	return sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
}

int gusdata_foreach_sample(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_sample *s), void *ctx)
{
	if (d->version < 2)
		return 0;
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT time, cpu, pid, tid, ip, period, user, callchain"
					   " FROM samples ORDER BY id");
	if (!st)
		return -1;
	int rc = 0, step;
	uint64_t *chain = NULL;
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
		rc = fn(ctx, &s);
		if (rc)
			break;
	}
	free(chain);
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

/* ------------------------------------------------------------ regions --- */
int gusdata_add_region(struct gusdata *d, struct gusdata_region *r)
{
	sqlite3_stmt *st = gusdata_prepare(d, "INSERT INTO regions (rank, kind, name, file, start, end, head,"
					   " parent, samples, share) VALUES (?,?,?,?,?,?,?,?,?,?)");
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
	if (gusdata_step_done(st))
		return -1;
	r->id = sqlite3_last_insert_rowid(d->db);
	return 0;
}

int gusdata_foreach_region(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_region *r), void *ctx)
{
	if (d->version < 2)
		return 0;
	sqlite3_stmt *st = gusdata_prepare(d, "SELECT id, rank, kind, name, file, start, end, head, parent,"
					   " samples, share FROM regions ORDER BY rank, id");
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

uint64_t gusdata_trace_records(struct gusdata *d)
{
	return count_rows(d, "SELECT total(records) FROM trace_chunks");
}

int gusdata_trace_read(struct gusdata *d, stream_sink sink, void *ctx, char *err, size_t errlen)
{
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
			gusdata_set_err(err, errlen, "%s: trace chunk %lld: %lld records is not a chunk's size",
					d->path, (long long)id, (long long)records);
			rc = -1;
			break;
		}
		rc = gusdata_trace_decode(p, len, (uint64_t)records, sink, ctx);
		if (rc == -1)
			gusdata_set_err(err, errlen, "%s: trace chunk %lld is damaged", d->path, (long long)id);
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
