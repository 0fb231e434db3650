/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus.data: the schema round trip, what a new recording may replace (an
 * old recording, never a directory or a user's file), one writer per
 * path, refusing foreign files, and a recording whose writer died. */
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gusdata.h"
#include "tap.h"

static char dir[] = "/tmp/gus-test-gusdata-XXXXXX";

/* a path in the test's directory; kept until the test ends */
static const char *tmp_path(const char *name)
{
	static char buf[64][256];
	static int k;
	if (k == 64)
		abort();
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k++];
}

static int count_mmap(void *ctx, const struct gusdata_mmap *m)
{
	int *n = ctx;
	if (*n == 0) {
		tap_ok(m->start == 0x400000 && m->len == 0x2000 && m->pgoff == 0x1000 && m->pid == 42,
		       "mmap record reads back with its numbers");
		tap_streq(m->filename, "/usr/bin/app", "mmap file name reads back");
		tap_streq(m->build_id, "0123abcd", "mmap build-id reads back");
	} else {
		tap_ok(m->start == 0xffffffffff600000ull, "an address above 2^63 keeps its bits");
		tap_ok(m->build_id == NULL, "a missing build-id reads back as NULL");
	}
	(*n)++;
	return 0;
}

struct chunk_seen {
	int n;
	size_t bytes;
	uint64_t last_offset;
	uint32_t flags;
	int ordered;
};

static int see_chunk(void *ctx, const struct gusdata_chunk *c)
{
	struct chunk_seen *s = ctx;
	if (s->n && c->aux_offset <= s->last_offset)
		s->ordered = 0;
	s->last_offset = c->aux_offset;
	s->bytes += c->size;
	s->flags |= c->flags;
	s->n++;
	return 0;
}

static int stop_at_first(void *ctx, const struct gusdata_chunk *c)
{
	(void)c;
	(*(int *)ctx)++;
	return 7;
}

struct iv_seen {
	int n;
	double last_time, sum, first_running;
};

static int collect_iv(void *ctx, const struct gusdata_interval_count *c)
{
	struct iv_seen *s = ctx;
	if (!s->n)
		s->first_running = c->running;
	s->n++;
	s->last_time = c->time;
	s->sum += c->value;
	return 0;
}

struct objects_seen {
	int regions, maps;
	bool build_id_ok, map_ok;
};

static int region_seen(void *ctx, const struct gusdata_region *r)
{
	struct objects_seen *os = ctx;
	os->regions++;
	os->build_id_ok = r->build_id && !strcmp(r->build_id, "72a44fc3");
	return 0;
}

static int map_seen(void *ctx, const struct gusdata_trace_map *m)
{
	struct objects_seen *os = ctx;
	os->maps++;
	os->map_ok = m->proc == 1 && !strcmp(m->object, "/usr/lib/x86_64-linux-gnu/liblzma.so.5") &&
		     m->build_id && !strcmp(m->build_id, "72a44fc3") && m->start == 0x7f0000003000 && m->len == 0x20000 &&
		     m->pgoff == 0x3000;
	return 0;
}

int main(void)
{
	char err[512];
	struct gusdata *d;
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	const char *path = tmp_path("gus.data");

	tap_ok(gusdata_create(path, 0, &d, err, sizeof(err)) == 0, "create a recording");
	struct stat st;
	tap_ok(stat(path, &st) != 0, "while it is written, nothing is at its path");
	tap_ok(strncmp(gusdata_file_path(d), path, strlen(path)) == 0 &&
	       !strncmp(gusdata_file_path(d) + strlen(path), ".partial-", 9),
	       "it is written beside it: %s", gusdata_file_path(d));
	tap_ok(gusdata_set_meta(d, "command", "./app --x") == 0, "set meta");
	tap_ok(gusdata_set_meta_u64(d, "cpu.model", 85) == 0, "set numeric meta");
	struct gusdata_mmap m = { .time = 5, .pid = 42, .tid = 42, .start = 0x400000, .len = 0x2000,
				  .pgoff = 0x1000, .prot = 5, .filename = "/usr/bin/app", .build_id = "0123abcd" };
	tap_ok(gusdata_add_mmap(d, &m) == 0, "add an mmap");
	struct gusdata_mmap v = { .time = 6, .pid = 42, .tid = 42, .start = 0xffffffffff600000ull,
				  .len = 0x1000, .filename = "[vsyscall]" };
	tap_ok(gusdata_add_mmap(d, &v) == 0, "add a high mapping");
	tap_ok(gusdata_add_comm(d, 1, 42, 42, "app", true) == 0, "add a comm");
	tap_ok(gusdata_add_event(d, 7, 0, 42, 42, "lost", 3, 0) == 0 &&
	       gusdata_add_event(d, 8, 1, 42, 42, "lost", 4, 0) == 0, "add lost events");
	uint8_t vdso[300];
	for (size_t i = 0; i < sizeof(vdso); i++)
		vdso[i] = (uint8_t)i;
	tap_ok(gusdata_add_file(d, "[vdso]", NULL, vdso, sizeof(vdso)) == 0, "add a file image");
	uint8_t pt[1000];
	memset(pt, 0x55, sizeof(pt));
	tap_ok(gusdata_begin(d) == 0, "begin a transaction");
	tap_ok(gusdata_begin(d) != 0, "nested transactions are refused");
	for (int i = 0; i < 10; i++) {
		struct gusdata_chunk c = { .cpu = i % 2, .tid = -1, .aux_offset = (uint64_t)i * 100,
					   .flags = i == 5 ? GUSDATA_CHUNK_TRUNCATED : 0, .data = pt + i * 100,
					   .size = 100 };
		gusdata_add_chunk(d, &c);
	}
	tap_ok(gusdata_commit(d) == 0, "commit");
	tap_ok(gusdata_finish(d, err, sizeof(err)) == 0, "finish: %s", err);

	tap_ok(stat(tmp_path("gus.data-wal"), &st) != 0 && stat(tmp_path("gus.data-journal"), &st) != 0 &&
	       stat(tmp_path("gus.data-shm"), &st) != 0, "a finished recording is one file (no side files)");
	tap_ok(gusdata_is_recording(path), "it is a recording (application id)");
	glob_t g;
	char pat[300];
	snprintf(pat, sizeof pat, "%s.partial-??????", path);
	tap_ok(glob(pat, 0, NULL, &g) == GLOB_NOMATCH, "no partial file is left");
	globfree(&g);

	tap_ok(gusdata_open(path, false, &d, err, sizeof(err)) == 0, "open the recording");
	tap_streq(gusdata_meta(d, "command"), "./app --x", "meta reads back");
	uint64_t model = 0;
	tap_ok(gusdata_meta_u64(d, "cpu.model", &model) && model == 85, "numeric meta reads back");
	tap_ok(gusdata_meta(d, "nothing") == NULL, "absent meta is NULL");
	tap_ok(gusdata_meta_u64(d, "schema_version", &model) && model == GUSDATA_SCHEMA_VERSION,
	       "the schema version is in meta");
	int nm = 0;
	tap_ok(gusdata_foreach_mmap(d, count_mmap, &nm) == 0 && nm == 2, "two mmaps in time order");
	uint64_t cnt = 0, sum = 0;
	tap_ok(gusdata_event_totals(d, "lost", &cnt, &sum) == 0 && cnt == 2 && sum == 7, "lost events total 2 records, 7 lost");
	size_t n = 0;
	uint8_t *img = gusdata_file(d, "[vdso]", &n);
	tap_ok(img && n == sizeof(vdso) && !memcmp(img, vdso, n), "file image reads back byte for byte");
	free(img);
	tap_ok(gusdata_file(d, "[none]", &n) == NULL && n == 0, "absent file is NULL");
	int *cpus, *tids;
	size_t nb;
	tap_ok(gusdata_chunk_buffers(d, &cpus, &tids, &nb) == 0 && nb == 2 && cpus[0] == 0 && cpus[1] == 1 &&
	       tids[0] == -1, "two PT buffers (per CPU)");
	free(cpus);
	free(tids);
	struct chunk_seen s = { .ordered = 1 };
	tap_ok(gusdata_foreach_chunk(d, 1, -1, see_chunk, &s) == 0 && s.n == 5 && s.bytes == 500 && s.ordered &&
	       (s.flags & GUSDATA_CHUNK_TRUNCATED), "CPU 1's chunks in order with their flags");
	int calls = 0;
	tap_ok(gusdata_foreach_chunk(d, 0, -1, stop_at_first, &calls) == 7 && calls == 1,
	       "a callback's non-zero return stops the walk and is returned");
	gusdata_close(d);

	/* a second recording renames the first, when it is finished */
	tap_ok(gusdata_create(path, 0, &d, err, sizeof(err)) == 0, "create over an existing recording");
	tap_ok(stat(tmp_path("gus.data.old"), &st) != 0, "the old recording stays in place while the new one is written");
	gusdata_set_meta(d, "command", "second");
	tap_ok(gusdata_finish(d, err, sizeof(err)) == 0, "finish the second");
	tap_ok(stat(tmp_path("gus.data.old"), &st) == 0, "the old recording became gus.data.old");
	tap_ok(gusdata_open(tmp_path("gus.data.old"), false, &d, err, sizeof(err)) == 0 &&
	       !strcmp(gusdata_meta(d, "command"), "./app --x"), "gus.data.old is the first recording");
	gusdata_close(d);
	/* a third replaces gus.data.old, which is a recording */
	tap_ok(gusdata_create(path, 0, &d, err, sizeof(err)) == 0, "a third recording");
	gusdata_set_meta(d, "command", "third");
	tap_ok(gusdata_finish(d, err, sizeof(err)) == 0, "finish the third");
	tap_ok(gusdata_open(tmp_path("gus.data.old"), false, &d, err, sizeof(err)) == 0 &&
	       !strcmp(gusdata_meta(d, "command"), "second"), "gus.data.old is now the second");
	gusdata_close(d);

	/* a recording not worth keeping: the earlier one is untouched */
	tap_ok(gusdata_create(path, 0, &d, err, sizeof(err)) == 0, "a fourth recording");
	gusdata_set_meta(d, "command", "fourth");
	gusdata_discard(d);
	tap_ok(gusdata_open(path, false, &d, err, sizeof(err)) == 0 && !strcmp(gusdata_meta(d, "command"), "third"),
	       "discarded: gus.data is still the third");
	gusdata_close(d);
	tap_ok(glob(pat, 0, NULL, &g) == GLOB_NOMATCH, "and no partial file is left");
	globfree(&g);

	/* one writer per path: a second is refused, the first unharmed */
	struct gusdata *w1, *w2;
	tap_ok(gusdata_create(path, 0, &w1, err, sizeof(err)) == 0, "a writer of gus.data");
	tap_ok(gusdata_create(path, 0, &w2, err, sizeof(err)) != 0 && strstr(err, "another gus record"),
	       "a second writer of the same path is refused: %s", err);
	gusdata_set_meta(w1, "command", "fifth");
	tap_ok(gusdata_finish(w1, err, sizeof(err)) == 0, "the first finishes");
	tap_ok(gusdata_open(path, false, &d, err, sizeof(err)) == 0 && !strcmp(gusdata_meta(d, "command"), "fifth"),
	       "its recording is in place");
	gusdata_close(d);

	/* what is never replaced */
	const char *sub = tmp_path("adir");
	mkdir(sub, 0755);
	FILE *keep = fopen(tmp_path("adir/keep"), "w");
	fputs("mine\n", keep);
	fclose(keep);
	tap_ok(gusdata_create(sub, 0, &d, err, sizeof(err)) != 0 && strstr(err, "is a directory"),
	       "a directory is refused: %s", err);
	tap_ok(gusdata_create(sub, GUSDATA_FORCE, &d, err, sizeof(err)) != 0, "even with force");
	tap_ok(stat(tmp_path("adir/keep"), &st) == 0 && stat(tmp_path("adir.old"), &st) != 0,
	       "the directory is where it was, with its files");
	const char *notes = tmp_path("notes.txt");
	keep = fopen(notes, "w");
	fputs("my notes\n", keep);
	fclose(keep);
	tap_ok(gusdata_create(notes, 0, &d, err, sizeof(err)) != 0 && strstr(err, "not a gus recording") &&
	       strstr(err, notes), "a regular file that is not a recording is refused: %s", err);
	tap_ok(gusdata_create(notes, GUSDATA_FORCE, &d, err, sizeof(err)) == 0, "with force it may be replaced");
	gusdata_discard(d);
	tap_ok(stat(notes, &st) == 0 && st.st_size == 9, "discarded: the file is untouched");
	const char *link = tmp_path("link.data");
	tap_ok(symlink(sub, link) == 0, "a symbolic link to the directory");
	tap_ok(gusdata_create(link, GUSDATA_FORCE, &d, err, sizeof(err)) != 0 && strstr(err, "directory"),
	       "a link to a directory is refused: %s", err);
	tap_ok(gusdata_create("/dev/null", GUSDATA_FORCE, &d, err, sizeof(err)) != 0 &&
	       strstr(err, "character device"), "a device is refused: %s", err);
	/* NAME.old that is not a recording is not replaced */
	const char *two = tmp_path("two.data");
	tap_ok(gusdata_create(two, 0, &d, err, sizeof(err)) == 0 && gusdata_finish(d, err, sizeof(err)) == 0,
	       "a recording two.data");
	keep = fopen(tmp_path("two.data.old"), "w");
	fputs("precious\n", keep);
	fclose(keep);
	tap_ok(gusdata_create(two, 0, &d, err, sizeof(err)) != 0 && strstr(err, "two.data.old"),
	       "NAME.old that is not a recording is refused: %s", err);
	tap_ok(stat(tmp_path("two.data.old"), &st) == 0 && st.st_size == 9, "and untouched");
	mkdir(tmp_path("three.data.old"), 0755);
	const char *three = tmp_path("three.data");
	tap_ok(gusdata_create(three, 0, &d, err, sizeof(err)) == 0 && gusdata_finish(d, err, sizeof(err)) == 0,
	       "a recording three.data next to a directory three.data.old");
	tap_ok(gusdata_create(three, GUSDATA_FORCE, &d, err, sizeof(err)) != 0 && strstr(err, "directory"),
	       "NAME.old that is a directory is refused even with force: %s", err);
	/* the destination changes while the recording is written */
	tap_ok(gusdata_create(tmp_path("late.data"), 0, &d, err, sizeof(err)) == 0, "a recording late.data");
	mkdir(tmp_path("late.data"), 0755);
	char kept[300];
	snprintf(kept, sizeof kept, "%s", gusdata_file_path(d));
	tap_ok(gusdata_finish(d, err, sizeof(err)) != 0 && strstr(err, "stays in"),
	       "a directory made meanwhile is not replaced: %s", err);
	tap_ok(gusdata_is_recording(kept), "the recording stays in its partial file");
	unlink(kept);
	/* a read-only directory */
	if (geteuid() != 0) {
		const char *ro = tmp_path("ro");
		mkdir(ro, 0555);
		tap_ok(gusdata_create(tmp_path("ro/gus.data"), 0, &d, err, sizeof(err)) != 0 &&
		       strstr(err, "read-only"), "a read-only directory is said so: %s", err);
	} else {
		tap_ok(1, "# SKIP a read-only directory: root writes anywhere");
	}

	/* the writer dies without closing: what it committed is readable */
	const char *crash = tmp_path("crash.data");
	pid_t pid = fork();
	if (pid == 0) {
		struct gusdata *w;
		if (gusdata_create(crash, 0, &w, err, sizeof(err))) {
			fprintf(stderr, "# child: %s\n", err);
			_exit(1);
		}
		gusdata_set_meta(w, "command", "crashes");
		gusdata_begin(w);
		gusdata_set_meta(w, "uncommitted", "yes");
		_exit(0);	/* no commit, no close */
	}
	int wst;
	waitpid(pid, &wst, 0);
	snprintf(pat, sizeof pat, "%s.partial-??????", crash);
	tap_ok(glob(pat, 0, NULL, &g) == 0 && g.gl_pathc == 1 && stat(crash, &st) != 0,
	       "a writer that died leaves its partial file, nothing at the path");
	char crashed[300] = "";
	if (g.gl_pathc == 1)
		snprintf(crashed, sizeof crashed, "%s", g.gl_pathv[0]);
	globfree(&g);
	d = NULL;
	tap_ok(gusdata_open(crashed, false, &d, err, sizeof(err)) != 0 && strstr(err, "stopped in the middle of a write"),
	       "read-only, a writer's unfinished transaction is said so: %s", err);
	tap_ok(gusdata_open(crashed, true, &d, err, sizeof(err)) == 0, "a recording whose writer died opens: %s", err);
	tap_ok(gusdata_create(crash, 0, &w2, err, sizeof(err)) == 0, "a dead writer's partial file does not block a new one");
	gusdata_discard(w2);
	tap_ok(access(crashed, F_OK) == 0, "and is left alone");
	if (d) {
		tap_streq(gusdata_meta(d, "command"), "crashes", "committed writes survive the writer's death");
		tap_ok(gusdata_meta(d, "uncommitted") == NULL, "an unfinished transaction is not there");
		gusdata_close(d);
	}

	/* foreign and damaged files */
	const char *text = tmp_path("text.data");
	FILE *f = fopen(text, "w");
	fputs("this is not a database, just some text that is long enough to have a header.........\n", f);
	fclose(f);
	tap_ok(gusdata_open(text, false, &d, err, sizeof(err)) != 0 && strstr(err, "not a gus.data"),
	       "a text file is refused: %s", err);
	tap_ok(strstr(err, text) != NULL, "the message names the file");
	tap_ok(gusdata_open(tmp_path("missing.data"), false, &d, err, sizeof(err)) != 0 &&
	       strstr(err, "No such file"), "a missing file is refused: %s", err);
	tap_ok(gusdata_open(dir, false, &d, err, sizeof(err)) != 0 && strstr(err, "not a regular file"),
	       "a directory is refused");

	char cmd[600];
	const char *foreign = tmp_path("foreign.db");
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'CREATE TABLE t (x); PRAGMA user_version = 1;'", foreign);
	/* the sqlite3 shell is a test dependency (scripts/install-deps.sh) */
	tap_ok(system(cmd) == 0, "sqlite3 made a foreign database");
	tap_ok(gusdata_open(foreign, false, &d, err, sizeof(err)) != 0 && strstr(err, "another application"),
	       "an SQLite file of another application is refused: %s", err);
	const char *newer = tmp_path("newer.data");
	gusdata_create(newer, 0, &d, err, sizeof(err));
	gusdata_finish(d, err, sizeof(err));
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'PRAGMA user_version = 99;' 2>/dev/null", newer);
	tap_ok(system(cmd) == 0, "sqlite3 set a newer schema version");
	tap_ok(gusdata_open(newer, false, &d, err, sizeof(err)) != 0 && strstr(err, "newer"),
	       "a newer schema is refused: %s", err);
	const char *trunc = tmp_path("trunc.data");
	snprintf(cmd, sizeof(cmd), "head -c 1500 '%s' > '%s'", path, trunc);
	tap_ok(system(cmd) == 0, "cut a recording short");
	d = NULL;
	tap_ok(gusdata_open(trunc, false, &d, err, sizeof(err)) != 0 && strstr(err, trunc) &&
	       strstr(err, "is damaged: 1500 of its"), "a truncated recording is called damaged, with its size: %s", err);
	const char *empty = tmp_path("empty.data");
	fclose(fopen(empty, "w"));
	tap_ok(gusdata_open(empty, false, &d, err, sizeof(err)) != 0 && strstr(err, "is empty"),
	       "an empty file is called empty: %s", err);
	snprintf(cmd, sizeof(cmd), "head -c 50 '%s' > '%s'", path, trunc);
	tap_ok(system(cmd) == 0 && gusdata_open(trunc, false, &d, err, sizeof(err)) != 0 && strstr(err, "cut short"),
	       "a recording cut inside its header: %s", err);

	/* schema 3: interval counts, and a schema-2 file upgraded when opened writable */
	const char *iv = tmp_path("intervals.data");
	tap_ok(gusdata_create(iv, 0, &d, err, sizeof(err)) == 0, "create a recording for intervals");
	struct gusdata_interval_count ic[3] = { { 0.1, "cycles", 1000, 1e8, 5e7 },
						{ 0.1, "instructions", 2000, 1e8, 5e7 },
						{ 0.2, "cycles", 900, 1e8, 1e8 } };
	for (int i = 0; i < 3; i++)
		gusdata_add_interval_count(d, &ic[i]);
	gusdata_finish(d, err, sizeof(err));
	tap_ok(gusdata_open(iv, false, &d, err, sizeof(err)) == 0, "open it");
	struct iv_seen ivs = { 0 };
	tap_ok(gusdata_foreach_interval_count(d, collect_iv, &ivs) == 0 && ivs.n == 3 && ivs.last_time == 0.2 &&
	       ivs.sum == 3900 && ivs.first_running == 5e7, "interval counts read back in order");
	gusdata_close(d);
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'DROP TABLE interval_counts; PRAGMA user_version = 2;'", iv);
	tap_ok(system(cmd) == 0, "sqlite3 made a schema-2 file");
	tap_ok(gusdata_open(iv, false, &d, err, sizeof(err)) == 0, "a schema-2 file opens read-only");
	ivs = (struct iv_seen){ 0 };
	tap_ok(gusdata_foreach_interval_count(d, collect_iv, &ivs) == 0 && ivs.n == 0,
	       "and has no interval counts");
	gusdata_close(d);
	tap_ok(gusdata_open(iv, true, &d, err, sizeof(err)) == 0 && gusdata_schema_version(d) == GUSDATA_SCHEMA_VERSION &&
	       gusdata_add_interval_count(d, &ic[0]) == 0, "opened writable, it is upgraded to the current schema");
	gusdata_close(d);

	/* schema 4: the regions' objects by build-id, the traced run's maps */
	char objs[256];
	snprintf(objs, sizeof(objs), "%s/objects.data", dir);
	tap_ok(gusdata_create(objs, 0, &d, err, sizeof(err)) == 0, "a recording for objects");
	struct gusdata_region rg = { .rank = 1, .kind = "function", .name = "liblzma.so.5+0x15aea",
				     .file = "/usr/lib/x86_64-linux-gnu/liblzma.so.5", .start = 0x15aea, .end = 0x15d00,
				     .head = 0x15aea, .samples = 10, .share = 0.5, .build_id = "72a44fc3" };
	struct gusdata_trace_map tm = { .proc = 1, .object = rg.file, .build_id = "72a44fc3", .start = 0x7f0000003000,
					.len = 0x20000, .pgoff = 0x3000 };
	tap_ok(gusdata_add_region(d, &rg) == 0 && gusdata_add_trace_map(d, &tm) == 0, "a region and a trace map stored");
	tap_ok(gusdata_finish(d, err, sizeof(err)) == 0, "and landed");
	tap_ok(gusdata_open(objs, false, &d, err, sizeof(err)) == 0, "read back");
	struct objects_seen os = { 0 };
	tap_ok(gusdata_foreach_region(d, region_seen, &os) == 0 && os.regions == 1 && os.build_id_ok,
	       "the region keeps its object's build-id");
	tap_ok(gusdata_foreach_trace_map(d, map_seen, &os) == 0 && os.maps == 1 && os.map_ok,
	       "the trace map reads back whole");
	gusdata_close(d);
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'DROP TABLE trace_maps; ALTER TABLE regions DROP COLUMN build_id;"
		 " PRAGMA user_version = 3;'", objs);
	tap_ok(system(cmd) == 0, "sqlite3 made a schema-3 file");
	os = (struct objects_seen){ 0 };
	tap_ok(gusdata_open(objs, false, &d, err, sizeof(err)) == 0 && gusdata_foreach_region(d, region_seen, &os) == 0 &&
	       os.regions == 1 && !os.build_id_ok && gusdata_foreach_trace_map(d, map_seen, &os) == 0 && os.maps == 0,
	       "a schema-3 file reads read-only: its regions without build-ids, no trace maps");
	gusdata_close(d);
	tap_ok(gusdata_open(objs, true, &d, err, sizeof(err)) == 0 && gusdata_schema_version(d) == GUSDATA_SCHEMA_VERSION &&
	       gusdata_add_trace_map(d, &tm) == 0, "opened writable, it is upgraded to the current schema");
	gusdata_close(d);

	/* schema 5: the traced run's output */
	char outs[256];
	snprintf(outs, sizeof(outs), "%s/outs.data", dir);
	tap_ok(gusdata_create(outs, 0, &d, err, sizeof(err)) == 0, "a recording for the traced run's output");
	tap_ok(gusdata_add_output(d, 2, "stdout", "hello\n", 6, 1000) == 0 && gusdata_add_output(d, 2, "stderr", "", 0, 0) == 0,
	       "its stdout (the first bytes of more) and an empty stderr stored");
	tap_ok(gusdata_finish(d, err, sizeof(err)) == 0, "and landed");
	tap_ok(gusdata_open(outs, false, &d, err, sizeof(err)) == 0, "read back");
	void *out = NULL;
	size_t outn = 0;
	uint64_t total = 0;
	tap_ok(gusdata_get_output(d, 2, "stdout", &out, &outn, &total) == 0 && outn == 6 && total == 1000 &&
	       !memcmp(out, "hello\n", 6), "stdout: the bytes kept and the total written");
	free(out);
	tap_ok(gusdata_get_output(d, 2, "stderr", &out, &outn, &total) == 0 && outn == 0 && total == 0,
	       "stderr: empty");
	free(out);
	tap_ok(gusdata_get_output(d, 1, "stdout", &out, &outn, &total) == 1 && !out, "run 1's output: none stored");
	gusdata_close(d);
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'DROP TABLE program_output; PRAGMA user_version = 4;'", outs);
	tap_ok(system(cmd) == 0, "sqlite3 made a schema-4 file");
	tap_ok(gusdata_open(outs, false, &d, err, sizeof(err)) == 0 &&
	       gusdata_get_output(d, 2, "stdout", &out, &outn, &total) == 1, "a schema-4 file reads: no output stored");
	gusdata_close(d);
	tap_ok(gusdata_open(outs, true, &d, err, sizeof(err)) == 0 && gusdata_schema_version(d) == GUSDATA_SCHEMA_VERSION &&
	       gusdata_add_output(d, 2, "stdout", "x", 1, 1) == 0, "opened writable, it is upgraded to the current schema");
	gusdata_close(d);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return tap_done();
}
