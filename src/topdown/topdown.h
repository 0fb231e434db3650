/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topdown: TMA node tables (data files) and evaluation of a count set into
 * a TMA tree. Pure computation: this module never touches the operating
 * system beyond reading the table or import file it is given. */
#ifndef GUS_TOPDOWN_H
#define GUS_TOPDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TD_ERRLEN 256

enum td_unit { TD_UNIT_SLOTS, TD_UNIT_CLOCKS, TD_UNIT_STALLS, TD_UNIT_CORE_CLOCKS };

enum td_event_kind {
	TD_EV_GENERAL,	/* any general-purpose counter */
	TD_EV_FIXED,	/* fixed counter only (does not use the general budget) */
	TD_EV_METRICS,	/* PERF_METRICS field: in a group led by SLOTS */
};

struct td_event {
	char *name;		/* Intel name, as used in formulas */
	char *pfm;		/* libpfm4 name, NULL when libpfm4 has none */
	uint64_t config;	/* public raw encoding (perf's cpu/config=/) */
	uint64_t config1;	/* extra MSR value (perf's config1), 0 if none */
	enum td_event_kind kind;
	char **aliases;		/* extra names perf prints */
	size_t n_aliases;
};

struct td_expr;

struct td_metric {
	char *name;
	struct td_expr *expr;
	char *formula;		/* the expression as the table writes it */
};

struct td_node {
	char *name;
	char *desc;
	int parent;		/* node index, -1 for level 1 */
	int level;		/* 1 for level 1 */
	enum td_unit unit;
	double threshold;
	struct td_expr *expr;
	char *formula;		/* the expression as the table writes it */
	bool *uses;		/* uses[e]: event e is used, directly or not */
};

struct td_table {
	char *id;
	char *full_name;
	char *origin;		/* file it was loaded from */
	char **aliases;
	size_t n_aliases;
	char **pmus;
	size_t n_pmus;
	char **omitted;		/* "NAME: why" of the nodes a generated table left out */
	char *perf_pmu;		/* a hybrid CPU's core-type PMU (cpu_core, cpu_atom), NULL */
	size_t n_omitted;
	int width;
	int counters;		/* general counters per thread (counters N), 0: not said */
	struct td_event *events;
	size_t n_events;
	struct td_metric *metrics;
	size_t n_metrics;
	struct td_node *nodes;
	size_t n_nodes;
};

/* Parse a table from text; origin names it in error messages ("FILE:LINE: ..."). */
struct td_table *td_table_parse(const char *text, const char *origin, char *err, size_t errlen);
struct td_table *td_table_load(const char *path, char *err, size_t errlen);
/* Load DIR/ID.tma, or the file whose alias line names ID. */
struct td_table *td_table_load_arch(const char *dir, const char *id, char *err, size_t errlen);
/* Load the table whose pmu line names the libpfm4 PMU name. */
struct td_table *td_table_load_pmu(const char *dir, const char *pmu, char *err, size_t errlen);
void td_table_free(struct td_table *t);

bool td_table_has_name(const struct td_table *t, const char *id);
/* The table's pmu line names this libpfm4 PMU. */
bool td_table_has_pmu(const struct td_table *t, const char *pmu);
int td_node_index(const struct td_table *t, const char *name);
const char *td_unit_name(enum td_unit u);

/* Event lookup by any name users or perf may write: Intel's name, libpfm4's
 * name, an alias, case-insensitively, ':' and '.' alike, with a cpu/.../
 * wrapper, or a raw encoding (cpu/event=0x..,umask=0x../, rNNNN). */
int td_table_find_event(const struct td_table *t, const char *name);
/* Parse a raw perf encoding; false if NAME is not one. */
bool td_parse_raw_config(const char *name, uint64_t *config);

/* The count set: the seam between collect/ (or import) and topdown/. */
struct td_count {
	char *event;		/* as produced: table name, perf or pfm name */
	double raw;
	double enabled;		/* ns */
	double running;		/* ns */
	bool counted;		/* false: <not counted> / <not supported> */
	char *why_not;		/* reason when !counted */
};

struct td_countset {
	struct td_count *c;
	size_t n, cap;
};

void td_countset_init(struct td_countset *cs);
void td_countset_free(struct td_countset *cs);
int td_countset_add(struct td_countset *cs, const char *event, double raw,
		    double enabled, double running);
int td_countset_add_uncounted(struct td_countset *cs, const char *event, const char *why);

/* Import perf stat -x, CSV output (plain, -r, -I and -A forms). Values that
 * perf printed are already scaled; raw is rebuilt as value x running/enabled
 * so that the engine's scaling gives perf's value back. Unknown events are
 * kept (the tree ignores them) and reported through warn when not NULL. */
int td_import_perf_csv(FILE *in, const char *origin, struct td_countset *cs,
		       char *err, size_t errlen);

/* Counts per region: a CSV whose first line (after '#' comments and
 * blank lines) is the header "region,event,value", then one row per
 * region and event, as perf report --group -F sym,... or perf script -F
 * ip,period,event output can be turned into. The region is everything
 * before the last two fields (so a C++ name may hold commas), double
 * quotes around it removed ("" inside stands for one), perf's "[.] " or
 * "[k] " prefix dropped; the event is a perf or libpfm4 name; the value
 * a count (a plain number; rows of one region and event add up). */
struct td_region_row {
	char *region;
	char *event;
	double value;
};

struct td_region_rows {
	struct td_region_row *v;
	size_t n, cap;
};

/* true when IN's first line that is not a comment or blank is the header
 * (IN is rewound) */
bool td_is_region_csv(FILE *in);
/* -1 with ERR naming ORIGIN, the line and the problem: no header, a row
 * without three fields, an empty region or event, a value that is not a
 * finite number at or above 0; no rows at all. */
int td_import_region_csv(FILE *in, const char *origin, struct td_region_rows *rows, char *err, size_t errlen);
void td_region_rows_free(struct td_region_rows *rows);

/* One count line of perf stat -x output, as td_perf_csv_read gives it. */
struct td_perf_line {
	int lineno;
	const char *prefix;	/* fields before the count, each followed by '/'; "" when none */
	double interval;	/* -I timestamp in seconds, NAN without -I */
	const char *id;		/* -A / --per-* aggregation id ("CPU3", "S0"), "" when none */
	const char *event;
	bool counted;		/* false: <not counted>, <not supported>, ran 0 % */
	const char *why_not;	/* when !counted */
	double value;		/* as perf printed it (scaled) */
	double enabled, running;	/* ns; enabled rebuilt from run time and percentage */
};

struct td_perf_reader {
	void *ctx;
	/* each count line; non-zero stops reading and td_perf_csv_read returns
	 * -1 (the callback sets ERR through its context) */
	int (*line)(void *ctx, const struct td_perf_line *l);
	/* '#' lines: the text after '#' and blanks (may be NULL) */
	void (*comment)(void *ctx, const char *text);
};

/* Reads perf stat -x output (any separator, -r, -I, -A and --per-* forms)
 * line by line. -1 with ERR "ORIGIN:LINE: problem" on a malformed line,
 * binary data, a read error, or no count line at all. */
int td_perf_csv_read(FILE *in, const char *origin, const struct td_perf_reader *rd, char *err,
		     size_t errlen);

/* Evaluation. */
enum td_status {
	TD_OK,
	TD_NOT_COMPUTABLE,	/* an event missing, not counted, or division by zero */
	TD_MISMEASURED,		/* outside [-5 %, 105 %] */
	TD_NOT_SELECTED,
};

struct td_result {
	double value;		/* fraction of the node's unit */
	enum td_status status;
	double mux;		/* min running/enabled of its events (1: not multiplexed) */
	bool flagged;		/* above threshold, parent flagged */
	bool bottleneck;	/* on the bottleneck path */
	bool candidate;		/* a sibling within 5 points is also on the path */
	char note[192];
};

struct td_eval_opts {
	int max_level;		/* 1..3 */
	bool smt_on;
	const bool *select;	/* per node: evaluate it (NULL: all up to max_level) */
};

struct td_tree {
	const struct td_table *table;
	struct td_result *res;	/* one per table node */
	double *ev_value;	/* scaled value per table event, NAN if missing */
	double *ev_raw, *ev_enabled, *ev_running;
	bool *ev_counted;
	double level1_sum;
	bool level1_sum_bad;	/* farther than 5 points from 100 % */
	int max_level;
};

int td_eval(const struct td_table *t, const struct td_countset *cs,
	    const struct td_eval_opts *opts, struct td_tree *out, char *err, size_t errlen);
void td_tree_free(struct td_tree *tree);

/* Node selection: the nodes up to level, plus those named in LIST (comma
 * separated node names, each with its ancestors). Returns an array of
 * n_nodes bools, or NULL with err set (unknown node). */
bool *td_select_nodes(const struct td_table *t, int max_level, const char *list,
		      char *err, size_t errlen);
/* Events the selected nodes need: needed[e] set true. Without SMT, the
 * AnyThread events (only read in SMT_on branches; they need
 * perf_event_paranoid <= 0) are left out. */
void td_needed_events(const struct td_table *t, const bool *select, bool smt_on, bool *needed);

/* Tolerance around [0, 1] before a value is called mismeasured, and around 1
 * for the level-1 sum. */
#define TD_RANGE_SLACK 0.05
#define TD_CANDIDATE_GAP 0.05

#endif
