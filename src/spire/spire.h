/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spire: the Statistical Piecewise-linear Roofline Ensemble (Wendt,
 * Ketkar, Bertacco: "SPIRE: Inferring Hardware Bottlenecks from
 * Performance Counter Data"). Per performance metric x, a roofline maps
 * the metric's operational intensity I_x = W / M_x to the highest
 * throughput P = W / T seen in training; a workload's metrics are ranked
 * by the throughput their rooflines allow, the lowest being the likely
 * bottlenecks. Pure computation, like topdown/: this module never touches
 * the operating system beyond the FILE streams it is given. */
#ifndef GUS_SPIRE_H
#define GUS_SPIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SPIRE_ERRLEN 512

/* Defaults of the paper: T in core cycles, W in retired instructions, so
 * that P is IPC. */
#define SPIRE_DEFAULT_TIME "cpu_clk_unhalted.thread"
#define SPIRE_DEFAULT_WORK "inst_retired.any"

/* ---------------------------------------------------------- names --- */
/* The name gus compares events by: lower case, ':' between an event and
 * its umask read as '.', a trailing perf modifier (":u", ":k", ":ppp",
 * "/u" after a cpu/.../ term) dropped, surrounding blanks dropped. After an
 * event name written in upper case (libpfm4's style: no lower-case letter
 * before the first ':'), only lower-case modifier letters are modifiers
 * and an upper-case part is a unit mask: "UNC_H_TRACKER_CYCLES_FULL:GP"
 * keeps its GP, "cycles:P" loses its P. OUT gets at most OUTLEN-1
 * characters. */
void spire_event_key(const char *name, char *out, size_t outlen);
/* NAME is the period event T (cpu_clk_unhalted.thread, its _p variant,
 * cpu-cycles, cycles) when TIME_EVENT is the default, else NAME's key
 * equals TIME_EVENT's key; likewise for work (inst_retired.any, its _p
 * variant, instructions). A plain event name wrapped in a core PMU, as
 * perf names events on hybrid CPUs ("cpu_core/cycles/",
 * "cpu_atom/instructions/u"; PMU cpu, cpu_* or armv*), compares as the
 * name it wraps. */
bool spire_is_time_event(const char *name, const char *time_event);
bool spire_is_work_event(const char *name, const char *work_event);

/* -------------------------------------------------------- samples --- */
/* One sample: a period of T time units in which W units of work were done
 * and the metric grew by M. P = W/T, I = W/M (infinite when M = 0). */
struct spire_sample {
	double t, w, m;
	double time;		/* end of the interval in seconds from the start, NAN if unknown */
};

struct spire_metric_samples {
	char *metric;		/* the event's key (spire_event_key) */
	char *label;		/* the name as the input wrote it (first seen) */
	struct spire_sample *s;
	size_t n, cap;
};

/* One count of one interval, as perf stat -I -x, prints it, as gus stat -I
 * counts it, or as gus.data stores it: the seam between the sources and
 * the sample set. */
struct spire_count {
	double time;		/* interval timestamp, seconds */
	const char *id;		/* -A / --per-* aggregation id; "" or NULL when none */
	const char *event;
	double value;		/* scaled (value x enabled / running), as perf prints it */
	double enabled, running;	/* ns, of this interval */
	bool counted;		/* false: <not counted>, <not supported>, ran 0 % */
};

/* What was left out while building a sample set; every field counts
 * samples (one metric of one interval), except where it says otherwise. */
struct spire_skips {
	size_t zero_t;		/* T = 0 in the sample's group */
	size_t zero_w;		/* W = 0 */
	size_t not_counted;	/* the metric, T or W not counted in that interval */
	size_t no_group;	/* no T or no W in the metric's group of the interval */
	size_t bad_value;	/* negative, NaN or infinite T, W or M */
	size_t not_simultaneous;	/* kept, but counted over another time than T and W
					 * (no event group: no T and W ran exactly as long
					 * as the metric; those of its segment were used) */
	size_t intervals_without_tw;	/* intervals (not samples) with no T or no W at all */
};

struct spire_sampleset {
	char *cpu;		/* libpfm4 name of the CPU ("skx"); NULL when unknown */
	char *time_event;	/* T's name as given (default SPIRE_DEFAULT_TIME) */
	char *work_event;	/* W's name (default SPIRE_DEFAULT_WORK) */
	struct spire_metric_samples *metrics;	/* in order of first appearance */
	size_t n;
	size_t intervals;	/* intervals that gave at least one sample */
	/* T and W over the whole input, each interval's T and W being the mean
	 * of its groups' (scaled) T and W: the measured throughput is
	 * total_w / total_t */
	double total_t, total_w;
	struct spire_skips skips;
};

/* TIME_EVENT, WORK_EVENT NULL: the defaults. Returns -1 on out of memory. */
int spire_sampleset_init(struct spire_sampleset *ss, const char *time_event, const char *work_event);
void spire_sampleset_free(struct spire_sampleset *ss);
/* Set the CPU (replacing any); -1 on out of memory. */
int spire_sampleset_set_cpu(struct spire_sampleset *ss, const char *cpu);
/* Add one sample directly (hand-made sets, tests). METRIC is keyed with
 * spire_event_key. A sample with T or W not positive, or M negative, or
 * any of them not finite, is counted in skips instead and 0 returned; -1
 * only on out of memory. Does not touch total_t/total_w/intervals. */
int spire_sampleset_add(struct spire_sampleset *ss, const char *metric, double t, double w, double m,
			double time);
/* Add the samples of one interval: C[0..N) are the counts of one
 * timestamp and one id, in the order they were counted or printed. Every
 * other event than T and W (a metric) gives a sample (T, W, M) with the T
 * and W of its event group: the members of a group ran for the same time,
 * so they are a T and a W whose running time equals the metric's (within
 * a relative 1e-9). When several do (nothing multiplexed: every group ran
 * the whole interval), those of the metric's segment are taken, else the
 * nearest by position. Segments: the first starts at the first count, a
 * new one where T or W appears a second time in the current segment.
 * A metric whose running time matches a W but no T (or a T but no W) is in
 * a group without T (W): left out (skips.no_group). One that matches
 * neither, or has no running time, takes its segment's T and W (ungrouped
 * events), counted in skips.not_simultaneous when the running times
 * differ, or is left out (skips.no_group) when its segment has no T or no
 * W. Everything left out is counted in skips; -1 with ERR only on out of
 * memory. */
int spire_sampleset_add_interval(struct spire_sampleset *ss, const struct spire_count *c, size_t n,
				 char *err, size_t errlen);
/* Read `perf stat -I MS -x SEP` output (or gus stat -I -x, output, the
 * same format) from IN: lines are grouped by timestamp and aggregation id
 * and each group goes to spire_sampleset_add_interval. A comment line
 * "# cpu: NAME" sets the CPU when the set has none; "# time: EVENT" and
 * "# work: EVENT" are checked against the set's (a different one is an
 * error naming ORIGIN). Lines without an interval timestamp (perf stat
 * without -I), malformed lines and files without any count are errors
 * naming ORIGIN and the line. */
int spire_import_perf_intervals(FILE *in, const char *origin, struct spire_sampleset *ss, char *err,
				size_t errlen);
/* The metric's samples, or NULL. NAME is keyed with spire_event_key. */
const struct spire_metric_samples *spire_sampleset_find(const struct spire_sampleset *ss, const char *name);
/* Keeps only the samples of the metrics whose key is one of KEYS[0..NKEYS)
 * (spire_metric_keys), in the order they had; the others are freed. */
void spire_sampleset_keep(struct spire_sampleset *ss, const char *const *keys, size_t nkeys);

/* ------------------------------------------------------ rooflines --- */
struct spire_knot {
	double i, p;
};

/* A roofline: a piecewise-linear function of I. knots[0] is the origin
 * (0, 0); knots are in non-decreasing I; two knots with the same I make a
 * step (the End vertex's horizontal segment joins the chain there).
 * knots[peak] is the highest-throughput training sample, or, when that
 * sample has I = infinity, the last knot of the left hull. Beyond the
 * last knot the estimate is tail_p; at I = infinity (M = 0) it is inf_p. */
struct spire_roofline {
	char *metric;		/* the event's key */
	char *label;		/* as the training input wrote it */
	size_t n_train;		/* training samples */
	struct spire_knot *knots;
	size_t n_knots;
	size_t peak;
	double peak_i, peak_p;	/* the highest-throughput sample; peak_i may be INFINITY */
	double tail_p;
	double inf_p;
};

/* The estimate at I (>= 0, INFINITY allowed): linear between knots; at a
 * step (two knots at one I, as the End step of models of gus before
 * 2026-11 made: flat at P_E to the front sample Y, then down to it) the
 * lower value, the step's foot (nothing trained at that I is higher).
 * Never NaN for a fitted roofline and I >= 0. */
double spire_roofline_eval(const struct spire_roofline *r, double i);
void spire_roofline_free(struct spire_roofline *r);

/* A training point: I (INFINITY when M = 0) and P. */
struct spire_point {
	double i, p;
};

/* Left fit (the paper's Figure 5): from the origin, repeatedly the segment
 * to the sample up and right of the current point with the highest slope
 * (the farthest on a tie), until the peak PK is reached: the upper convex
 * hull from the origin, increasing and concave-down. Finite points only;
 * *OUT (malloc'ed) gets the knots from (0,0) to the last vertex, *N of
 * them. -1 on out of memory. */
int spire_fit_left(const struct spire_point *pts, size_t n, struct spire_point pk, struct spire_knot **out,
		   size_t *nout);

/* Right fit (Figure 6) over the points with I >= the peak's: the Pareto
 * front (maximal in both I and P; the peak is its leftmost member E), a
 * vertex per valid segment (X, Y) between front samples that no training
 * sample lies above, edges (X, Y) -> (Y, Z) when Y-Z is steeper, the Start
 * vertex (a sample S at I = infinity, or a dummy one: the segment from S to
 * a front sample X is the horizontal ray right of X at P_X, and S itself
 * is met), the End vertex (from a front sample that no segment joins to E:
 * up to the left as shallow as concavity and the samples allow, to P_E,
 * then flat to E, as the authors' reference implementation does). Each
 * edge weighs the squared over-estimation of the front samples its new
 * segments span; the cheapest path from Start to End is the fit (the
 * graph is acyclic in I, so one pass in order of I finds Dijkstra's path).
 * *OUT gets the knots from the peak E rightwards (E first), *NOUT of
 * them, *TAIL_P the ray's height, *INF_P the value at I = infinity (P_S of
 * a sample with M = 0, else the ray's), *COST the path's total error. -1
 * on out of memory. */
int spire_fit_right(const struct spire_point *pts, size_t n, struct spire_point pk, struct spire_knot **out,
		    size_t *nout, double *tail_p, double *inf_p, double *cost);

/* Both fits for one metric's samples: split at the highest-P sample (on a
 * tie the one with the highest I), left hull up to it, right chain after
 * it. -1 with ERR when no sample has a finite I (the metric never
 * counted: nothing to learn) or out of memory. */
int spire_fit(const struct spire_metric_samples *ms, struct spire_roofline *r, char *err, size_t errlen);

/* ---------------------------------------------------------- model --- */
struct spire_model {
	char *cpu;		/* NULL: unknown */
	char *time_event, *work_event;
	size_t n_samples;	/* training samples, all metrics */
	size_t n_files;		/* training files (informative) */
	struct spire_roofline *r;
	size_t n;
};

/* One roofline per metric of SS (metrics whose samples all have M = 0 are
 * left out; *SKIPPED, when not NULL, gets how many, and SKIP_CB names
 * each). SELECT (NULL: all) keeps only metrics whose key is in it
 * (NSELECT keys). -1 with ERR when nothing is left to fit. */
int spire_train(const struct spire_sampleset *ss, const char *const *select, size_t nselect,
		struct spire_model *m, size_t *skipped, void (*skip_cb)(void *ctx, const char *metric, const char *why),
		void *skip_ctx, char *err, size_t errlen);
void spire_model_free(struct spire_model *m);
/* The text format of gus-spire(1), FILE FORMAT. Numbers are written with
 * 17 significant digits so that a model read back evaluates identically.
 * -1 on a write error. */
int spire_model_write(FILE *out, const struct spire_model *m);
/* -1 with ERR "ORIGIN:LINE: problem" on anything that is not a well-formed
 * model: wrong magic or version, knots out of order, a knot below zero,
 * a second knot at I = 0 (a step at the origin), a non-finite number
 * where one is needed, a peak index out of range, at the origin, or (the
 * peak's I finite) at a knot other than the peak, a metric twice. */
int spire_model_read(FILE *in, const char *origin, struct spire_model *m, char *err, size_t errlen);
const struct spire_roofline *spire_model_find(const struct spire_model *m, const char *metric);

/* ------------------------------------------------------- analysis --- */
struct spire_estimate {
	const struct spire_roofline *r;	/* the model's roofline */
	size_t n;		/* workload samples used */
	double t;		/* their total T */
	double estimate;	/* Eq. 1: sum(T_i * P_x(I_i)) / sum(T_i); finite,
				 * scaled where T_i * P_x overflows */
	double measured;	/* sum(W_i) / sum(T_i) of the same samples */
	double left_of_peak;	/* fraction of the samples (by count) with I below the peak's I */
};

struct spire_analysis {
	struct spire_estimate *e;	/* by estimate, lowest first (ties: metric name) */
	size_t n;
	double ensemble;	/* the minimum estimate (e[0].estimate); 0 when n = 0 */
	double measured;	/* total_w / total_t of the sample set; 0 when unknown */
	size_t n_samples;	/* workload samples used, all metrics */
	/* metrics of the workload the model has no roofline for */
	char **unmodeled;
	size_t n_unmodeled;
};

/* The analysis of SS with M. -1 with ERR when SS and M use other T or W
 * events, or no metric of SS is in M. The CPU is not checked here (see
 * spire_cpu_check). */
int spire_analyze(const struct spire_model *m, const struct spire_sampleset *ss, struct spire_analysis *a,
		  char *err, size_t errlen);
void spire_analysis_free(struct spire_analysis *a);
/* 0 when the model's and the samples' CPUs agree or either is unknown
 * (WARN then says what was assumed, or is ""), -1 with ERR naming both
 * when they differ. */
int spire_cpu_check(const struct spire_model *m, const struct spire_sampleset *ss, char *warn, size_t warnlen,
		    char *err, size_t errlen);
/* spire_cpu_check, then spire_analyze: what gus spire analyze and gus
 * report --spire do; NOTE as spire_cpu_check's WARN. */
int spire_analyze_for_cpu(const struct spire_model *m, const struct spire_sampleset *ss, struct spire_analysis *a,
			  char *note, size_t notelen, char *err, size_t errlen);

/* ----------------------------------------------------- metric sets --- */
/* The metrics gus counts for SPIRE on a CPU: a data file per CPU family
 * (data/spire/ID.metrics, format in data/spire/FORMAT). */
struct spire_metric_def {
	char *abbr;		/* "DB.2" */
	char *area;		/* "frontend", "bad-speculation", "memory", "core" */
	char *event;		/* Intel's name, as perf knows it: "idq.dsb_uops" */
	char *pfm;		/* libpfm4's name: "IDQ:DSB_UOPS" */
	char *desc;
	bool any_thread;	/* counts both SMT threads (AnyThread): needs
				 * perf_event_paranoid <= 0; "anythread" in the file */
};

struct spire_metricset {
	char *id;		/* "skx" */
	char *origin;		/* the file */
	char **cpus;		/* libpfm4 PMU names it is for */
	size_t n_cpus;
	char *time_event, *time_pfm;	/* T: Intel and libpfm4 names */
	char *work_event, *work_pfm;	/* W */
	struct spire_metric_def *m;
	size_t n;
};

/* Parse a metric set from TEXT; ORIGIN names it in errors "ORIGIN:LINE: ...". */
struct spire_metricset *spire_metricset_parse(const char *text, const char *origin, char *err, size_t errlen);
/* DIR/ID.metrics, or the file in DIR whose cpus line names ID (a libpfm4
 * PMU name). NULL with ERR naming what is there when none is. */
struct spire_metricset *spire_metricset_load(const char *dir, const char *id, char *err, size_t errlen);
void spire_metricset_free(struct spire_metricset *s);
/* The metric named NAME by abbreviation (case-insensitive) or by event
 * key, or NULL. */
const struct spire_metric_def *spire_metricset_find(const struct spire_metricset *s, const char *name);
/* The metric set of CPU in DIR (spire_metricset_load), for abbreviations;
 * NULL when CPU is NULL or has none. */
struct spire_metricset *spire_metricset_for(const char *dir, const char *cpu);
/* --metrics LIST (comma-separated; commas inside a cpu/.../ term do not
 * split) as event keys (spire_event_key), an abbreviation of SET (may be
 * NULL) as its event's: a malloc'ed array of *N malloc'ed keys, empty
 * items skipped. NULL (*N 0) on out of memory. */
char **spire_metric_keys(const char *list, const struct spire_metricset *set, size_t *n);
void spire_metric_keys_free(char **keys, size_t n);

#endif
