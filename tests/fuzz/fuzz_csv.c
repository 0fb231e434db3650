/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf stat -x output: td_perf_csv_read (every field of every line) and
 * td_import_perf_csv (gus stat --import), then the TMA tree of the
 * imported counts with the Cascade Lake table; and the same bytes as
 * per-region counts (gus record --import-counts). */
#include <math.h>

#include "fuzz.h"
#include "topdown.h"

static struct td_table *table;

/* freed at exit, so that LeakSanitizer reports only what inputs leak */
static void free_table(void)
{
	td_table_free(table);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/data/tma/hand/clx.tma", fuzz_srcdir());
	table = td_table_load(path, err, sizeof err);
	if (!table) {
		fprintf(stderr, "fuzz_csv: %s\n", err);
		exit(1);
	}
	atexit(free_table);
	return 0;
}

struct sum {
	size_t bytes;
	double total;
};

static int on_line(void *ctx, const struct td_perf_line *l)
{
	struct sum *s = ctx;
	s->bytes += strlen(l->prefix) + strlen(l->id) + strlen(l->event) + (l->why_not ? strlen(l->why_not) : 0);
	if (l->counted)
		s->total += l->value + l->enabled + l->running;
	if (!isnan(l->interval))
		s->total += l->interval;
	return 0;
}

static void on_comment(void *ctx, const char *text)
{
	struct sum *s = ctx;
	s->bytes += strlen(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512], *buf;
	struct sum s = { 0 };
	struct td_perf_reader rd = { .ctx = &s, .line = on_line, .comment = on_comment };
	FILE *f = fuzz_file(data, size, &buf);
	td_perf_csv_read(f, "fuzz.csv", &rd, err, sizeof err);
	fclose(f);
	free(buf);

	struct td_countset cs;
	td_countset_init(&cs);
	f = fuzz_file(data, size, &buf);
	if (!td_import_perf_csv(f, "fuzz.csv", &cs, err, sizeof err)) {
		for (int smt = 0; smt < 2; smt++) {
			struct td_eval_opts eo = { .max_level = 3, .smt_on = smt };
			struct td_tree tree;
			if (!td_eval(table, &cs, &eo, &tree, err, sizeof err))
				td_tree_free(&tree);
		}
	}
	fclose(f);
	free(buf);
	td_countset_free(&cs);

	struct td_region_rows rows;
	f = fuzz_file(data, size, &buf);
	if (td_is_region_csv(f) && !td_import_region_csv(f, "fuzz.csv", &rows, err, sizeof err)) {
		for (size_t i = 0; i < rows.n; i++)
			s.bytes += strlen(rows.v[i].region) + strlen(rows.v[i].event);
		td_region_rows_free(&rows);
	}
	fclose(f);
	free(buf);
	return 0;
}
