/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c - table, CSV and statistics of the compiled-code accuracy
 * benchmark (see README.md).
 *
 *   report IN.tsv OUT.csv
 *
 * IN.tsv (written by run.sh), one kernel and build per line, tab-separated:
 *    1 kernel      2 build       3 data (L1|L2)
 *    4 measured core cycles per innermost iteration (or a reason)
 *    5 iqr %       6 cycles per call          7 innermost iterations per call
 *    8 samples     9 cpu (family-model)      10 binary id
 *   11 loops (START-END:HITS;... offsets into k_NAME, hits per call)
 *   12 gus static cycles per iteration of its loop
 *   13 that loop (START-END, offsets)         14 its iterations per call
 *   15 gus traced cycles per iteration of its loop
 *   16 that loop                               17 its iterations per call
 *   18 llvm-mca cycles per iteration of the static loop
 *   19 how the traced stream was made (qemu, ptrace)
 * Missing values are "n/a" or "-" (anything that is not a positive number;
 * iterations per call may be 0: the chosen loop never ran).
 *
 * A predictor gives cycles per iteration of one machine loop; the
 * measurement is per innermost iteration of the C source. The prediction
 * is converted with the loop's iterations per call:
 *   predicted = cycles per loop iteration x loop iterations / innermost
 *               iterations
 * (a vectorised loop runs fewer iterations than the source's loop; and
 * the time outside the chosen loop is not predicted at all, so kernels
 * that spend much of it elsewhere show up as under-predicted).
 *
 * Statistics per predictor, per build and over all: MAPE = 100/n sum
 * |pred - meas| / meas, and Kendall's tau-b between measured and
 * predicted values ((concordant - discordant) / sqrt((n0 - ties_meas)
 * (n0 - ties_pred)), n0 = n(n-1)/2, values within a relative 1e-9 tie),
 * over the rows each predictor predicted and over the rows all
 * predictors that ran predicted. The last line is
 *   gus-static MAPE X% tau Y | gus-traced MAPE X% tau Y | llvm-mca MAPE X% tau Y
 */
#define _DEFAULT_SOURCE	/* strsep */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXR 1024
#define FIELD 512
#define NF 19
#define NP 3

static const char *const pname[NP] = { "gus-static", "gus-traced", "llvm-mca" };

struct row {
	char f[NF][FIELD];
	double meas;
	double raw[NP];		/* cycles per loop iteration; NAN: none */
	double hits[NP];	/* loop iterations per call */
	double pred[NP];	/* cycles per innermost iteration; NAN: none */
	double iters;
};

static struct row rows[MAXR];
static size_t nrows;

static double num(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v <= 0)
		return NAN;
	return v;
}

/* a number >= 0, else NAN */
static double num0(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v < 0)
		return NAN;
	return v;
}

static int cmp_tol(double a, double b)
{
	double tol = 1e-9 * fmax(fabs(a), fabs(b));
	if (fabs(a - b) <= tol)
		return 0;
	return a < b ? -1 : 1;
}

static double mape(const double *meas, const double *pred, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += fabs(pred[i] - meas[i]) / meas[i];
	return n ? 100.0 * s / (double)n : NAN;
}

static double kendall_tau_b(const double *x, const double *y, size_t n)
{
	long long conc = 0, disc = 0, tie_x = 0, tie_y = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			int sx = cmp_tol(x[i], x[j]), sy = cmp_tol(y[i], y[j]);
			tie_x += !sx;
			tie_y += !sy;
			if (sx && sy) {
				if (sx == sy)
					conc++;
				else
					disc++;
			}
		}
	long long n0 = (long long)n * (long long)(n - 1) / 2;
	double den = sqrt((double)(n0 - tie_x) * (double)(n0 - tie_y));
	if (n < 2 || den == 0)
		return NAN;
	return (double)(conc - disc) / den;
}

struct stat {
	size_t n;
	double mape, tau;
};

/* predictor P over the measured rows of BUILD (NULL: all) that it
 * predicted; with COMMON only those every predictor in USED predicted */
static struct stat stats(int p, const char *build, bool common, const bool *used)
{
	static double m[MAXR], q[MAXR];
	struct stat st = { 0, NAN, NAN };
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		if (isnan(r->meas) || isnan(r->pred[p]))
			continue;
		if (build && strcmp(build, r->f[1]))
			continue;
		bool skip = false;
		for (int k = 0; common && k < NP; k++)
			skip |= used[k] && isnan(r->pred[k]);
		if (skip)
			continue;
		m[st.n] = r->meas;
		q[st.n] = r->pred[p];
		st.n++;
	}
	if (st.n) {
		st.mape = mape(m, q, st.n);
		st.tau = kendall_tau_b(m, q, st.n);
	}
	return st;
}

static void fmt_stat(char *buf, size_t len, struct stat s)
{
	char a[32], b[32];
	if (isnan(s.mape))
		snprintf(a, sizeof a, "n/a");
	else
		snprintf(a, sizeof a, "%.1f%%", s.mape);
	if (isnan(s.tau))
		snprintf(b, sizeof b, "n/a");
	else
		snprintf(b, sizeof b, "%.3f", s.tau);
	snprintf(buf, len, "n=%-3zu MAPE %7s tau %6s", s.n, a, b);
}

static void fmt_val(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (v < 10)
		snprintf(buf, len, "%.3f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

static void fmt_err(char *buf, size_t len, double pred, double meas)
{
	if (isnan(pred) || isnan(meas))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f", 100.0 * (pred - meas) / meas);
}

static void fmt_csv_num(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.6g", v);
}

/* a CSV field: the text, or "n/a" when empty or "-" */
static const char *csv_text(const char *s)
{
	return s[0] && strcmp(s, "-") ? s : "n/a";
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: report IN.tsv OUT.csv\n");
		return 2;
	}
	FILE *in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	static char line[16384];
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		if (nrows == MAXR) {
			fprintf(stderr, "report: more than %d rows\n", MAXR);
			return 1;
		}
		struct row *r = &rows[nrows++];
		char *s = line;
		for (int i = 0; i < NF; i++) {
			char *f = strsep(&s, "\t");
			snprintf(r->f[i], FIELD, "%s", f ? f : "");
		}
		r->meas = num(r->f[3]);
		r->iters = num(r->f[6]);
		const int rawf[NP] = { 11, 14, 17 }, hitf[NP] = { 13, 16, 13 };
		for (int p = 0; p < NP; p++) {
			r->raw[p] = num(r->f[rawf[p]]);
			r->hits[p] = num0(r->f[hitf[p]]);
			r->pred[p] = r->raw[p] * r->hits[p] / r->iters;	/* NAN if any is */
		}
	}
	fclose(in);

	FILE *csv = fopen(argv[2], "w");
	if (!csv) {
		perror(argv[2]);
		return 1;
	}
	fprintf(csv, "kernel,build,measured_cycles_per_iter,spread_pct,data,cycles_per_call,inner_iters,samples,cpu,"
		     "bin_id,loops,gus_static,gus_static_err_pct,gus_traced,gus_traced_err_pct,llvm_mca,"
		     "llvm_mca_err_pct,static_loop,static_loop_iters,gus_static_per_loop_iter,traced_loop,"
		     "traced_loop_iters,gus_traced_per_loop_iter,llvm_mca_per_loop_iter,traced_stream\n");

	/* without any prediction (--measure-only): the measurements alone */
	bool any = false;
	for (size_t i = 0; i < nrows; i++)
		for (int p = 0; p < NP; p++)
			any |= !isnan(rows[i].raw[p]);
	if (any)
		printf("%-11s %-8s %-4s %9s %6s %9s | %10s %7s | %10s %7s | %9s %7s\n", "kernel", "build", "data",
		       "measured", "iqr%", "loop/src", "gus-static", "err%", "gus-traced", "err%", "llvm-mca", "err%");
	else
		printf("%-11s %-8s %-4s %9s %6s %12s %10s %8s  %s\n", "kernel", "build", "data", "measured", "iqr%",
		       "cycles/call", "iters", "samples", "loops (offset range: iterations per call)");
	bool used[NP] = { false, false, false };
	size_t n_meas = 0, n_pred[NP] = { 0 }, n_qemu = 0, n_ptrace = 0;
	for (size_t i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		char ms[64], sp[32], ls[32], ps[NP][32], pe[NP][32];
		if (isnan(r->meas))
			snprintf(ms, sizeof ms, "%.9s", r->f[3][0] ? r->f[3] : "n/a");
		else
			fmt_val(ms, sizeof ms, r->meas);
		snprintf(sp, sizeof sp, "%s", isnan(r->meas) || !r->f[4][0] ? "-" : r->f[4]);
		double ratio = r->hits[0] / r->iters;
		if (isnan(ratio))
			snprintf(ls, sizeof ls, "-");
		else
			snprintf(ls, sizeof ls, "%.4f", ratio);
		for (int p = 0; p < NP; p++) {
			fmt_val(ps[p], sizeof ps[p], r->pred[p]);
			fmt_err(pe[p], sizeof pe[p], r->pred[p], r->meas);
			if (!isnan(r->raw[p]))
				used[p] = true;
			if (!isnan(r->meas))
				n_pred[p] += !isnan(r->pred[p]);
		}
		n_meas += !isnan(r->meas);
		n_qemu += !isnan(r->raw[1]) && !strcmp(r->f[18], "qemu");
		n_ptrace += !isnan(r->raw[1]) && !strcmp(r->f[18], "ptrace");
		/* the traced loop differs from the static one: '*' */
		bool other = r->f[15][0] && strcmp(r->f[15], "-") && strcmp(r->f[15], r->f[12]);
		char ts[40];
		snprintf(ts, sizeof ts, "%s%s", ps[1], other ? "*" : "");
		if (any)
			printf("%-11s %-8s %-4s %9s %6s %9s | %10s %7s | %10s %7s | %9s %7s\n", r->f[0], r->f[1],
			       r->f[2], ms, sp, ls, ps[0], pe[0], ts, pe[1], ps[2], pe[2]);
		else
			printf("%-11s %-8s %-4s %9s %6s %12s %10s %8s  %s\n", r->f[0], r->f[1], r->f[2], ms, sp,
			       r->f[5], r->f[6], r->f[7], r->f[10]);

		char cm[32], cp[NP][32], cr[NP][32];
		fmt_csv_num(cm, sizeof cm, r->meas);
		for (int p = 0; p < NP; p++) {
			fmt_csv_num(cp[p], sizeof cp[p], r->pred[p]);
			fmt_csv_num(cr[p], sizeof cr[p], r->raw[p]);
		}
		fprintf(csv, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r->f[0],
			r->f[1], isnan(r->meas) ? csv_text(r->f[3]) : cm, csv_text(r->f[4]), csv_text(r->f[2]),
			csv_text(r->f[5]), csv_text(r->f[6]), csv_text(r->f[7]), csv_text(r->f[8]), csv_text(r->f[9]),
			csv_text(r->f[10]), cp[0], pe[0], cp[1], pe[1], cp[2], pe[2], csv_text(r->f[12]),
			csv_text(r->f[13]), cr[0], csv_text(r->f[15]), csv_text(r->f[16]), cr[1], cr[2],
			csv_text(r->f[18]));
	}
	if (fclose(csv)) {
		perror(argv[2]);
		return 1;
	}

	if (any)
		printf("\nmeasured and loop/src: core cycles per innermost iteration of the C source, and the\n"
		       "iterations of gus's static loop per innermost iteration; predictions converted with\n"
		       "their loop's iterations per call (* = the traced run chose another loop than the static one)\n");
	else
		printf("\nmeasured: core cycles per innermost iteration of the C source (median of the samples)\n");
	printf("\nrows: %zu, measured %zu; predicted: gus-static %zu, gus-traced %zu, llvm-mca %zu\n", nrows, n_meas,
	       n_pred[0], n_pred[1], n_pred[2]);
	if (n_qemu + n_ptrace)
		printf("traced streams: %zu under QEMU, %zu single-stepped natively with ptrace\n", n_qemu, n_ptrace);

	if (!any) {
		printf("no predictions in this run (--measure-only: predict this CSV with run.sh --measured)\n");
		return 0;
	}

	/* the builds, in order of appearance */
	const char *builds[16];
	size_t nb = 0;
	for (size_t i = 0; i < nrows && nb < 16; i++) {
		bool seen = false;
		for (size_t b = 0; b < nb; b++)
			seen |= !strcmp(builds[b], rows[i].f[1]);
		if (!seen)
			builds[nb++] = rows[i].f[1];
	}
	for (int p = 0; p < NP; p++)
		if (!used[p])
			printf("%s: no predictions (not run, or failed everywhere)\n", pname[p]);
	int nused = 0;
	for (int p = 0; p < NP; p++)
		nused += used[p];
	for (int common = 0; common <= 1; common++) {
		if (common && nused < 2)
			break;
		printf("\n%s:\n", common ? "over the rows every predictor that ran predicted" :
		       "each predictor over the rows it predicted");
		for (size_t b = 0; b <= nb; b++) {
			const char *build = b < nb ? builds[b] : NULL;
			for (int p = 0; p < NP; p++) {
				if (!used[p])
					continue;
				char buf[128];
				fmt_stat(buf, sizeof buf, stats(p, build, common, used));
				printf("  %-9s %-10s %s\n", build ? build : "all", pname[p], buf);
			}
		}
	}

	/* the summary line: over the common rows when there are any */
	bool common = nused >= 2 && stats(0, NULL, true, used).n + stats(1, NULL, true, used).n +
						stats(2, NULL, true, used).n > 0;
	printf("\n");
	for (int p = 0; p < NP; p++) {
		struct stat s = stats(p, NULL, common, used);
		char a[32], t[32];
		if (isnan(s.mape))
			snprintf(a, sizeof a, "n/a");
		else
			snprintf(a, sizeof a, "%.1f%%", s.mape);
		if (isnan(s.tau))
			snprintf(t, sizeof t, "n/a");
		else
			snprintf(t, sizeof t, "%.3f", s.tau);
		printf("%s%s MAPE %s tau %s", p ? " | " : "", pname[p], a, t);
	}
	printf("\n");
	return 0;
}
