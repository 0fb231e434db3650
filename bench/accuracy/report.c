/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c - table, CSV and statistics of the gus sim accuracy benchmark.
 *
 *   report IN.tsv OUT.csv
 *
 * IN.tsv (written by run.sh), one kernel per line, tab-separated:
 *   name category measured iqr-% gus llvm-mca [samples-kept/taken]
 * where any of measured, gus, llvm-mca may be "n/a" (or any other text
 * that is not a positive number). Prints the table, MAPE and Kendall's
 * tau-b of each predictor against the measurement, per category and over
 * all kernels, and ends with the line
 *   gus MAPE X% tau Y | llvm-mca MAPE X% tau Y
 * computed over the kernels that both predicted; when gus predicted none,
 * llvm-mca's figures on that line cover every kernel it predicted (and a
 * note says so).
 *
 * MAPE  = 100/n * sum |pred - meas| / meas
 * tau-b = (concordant - discordant) / sqrt((n0 - ties_meas) * (n0 - ties_pred)),
 *         n0 = n(n-1)/2, over all pairs; values within a relative 1e-9 tie.
 */
#define _DEFAULT_SOURCE	/* strsep */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXK 1024
#define FIELD 128

struct row {
	char name[FIELD], cat[FIELD];
	double meas, spread, gus, mca;	/* NAN when missing */
	char meas_txt[FIELD], samples[FIELD];
};

static struct row rows[MAXK];
static size_t nrows;

static double num(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v <= 0)
		return NAN;
	return v;
}

static void copy_field(char *dst, const char *src)
{
	snprintf(dst, FIELD, "%s", src ? src : "");
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
			if (!sx)
				tie_x++;
			if (!sy)
				tie_y++;
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

/* statistics of one predictor (0 = gus, 1 = llvm-mca) over the rows that
 * pass `want` and the category filter (NULL = all) */
struct stat {
	size_t n;
	double mape, tau;
};

static double pred_of(const struct row *r, int which)
{
	return which ? r->mca : r->gus;
}

static struct stat stats(int which, bool need_both, const char *cat)
{
	static double m[MAXK], p[MAXK];
	struct stat st = { 0, NAN, NAN };
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		if (isnan(r->meas) || isnan(pred_of(r, which)))
			continue;
		if (need_both && (isnan(r->gus) || isnan(r->mca)))
			continue;
		if (cat && strcmp(cat, r->cat))
			continue;
		m[st.n] = r->meas;
		p[st.n] = pred_of(r, which);
		st.n++;
	}
	if (st.n) {
		st.mape = mape(m, p, st.n);
		st.tau = kendall_tau_b(m, p, st.n);
	}
	return st;
}

static void fmt_pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.1f%%", v);
}

static void fmt_tau(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.3f", v);
}

static void fmt_val(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
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

static void print_stat_line(const char *label, struct stat g, struct stat m)
{
	char gm[32], gt[32], mm[32], mt[32];
	fmt_pct(gm, sizeof(gm), g.mape);
	fmt_tau(gt, sizeof(gt), g.tau);
	fmt_pct(mm, sizeof(mm), m.mape);
	fmt_tau(mt, sizeof(mt), m.tau);
	printf("  %-10s gus n=%-3zu MAPE %7s tau %6s | llvm-mca n=%-3zu MAPE %7s tau %6s\n",
	       label, g.n, gm, gt, m.n, mm, mt);
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
	char line[4096];
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		if (nrows == MAXK) {
			fprintf(stderr, "report: more than %d kernels\n", MAXK);
			return 1;
		}
		char *f[7] = { 0 };
		char *s = line;
		for (int i = 0; i < 7; i++) {
			f[i] = strsep(&s, "\t");
			if (!f[i])
				break;
		}
		struct row *r = &rows[nrows++];
		copy_field(r->name, f[0]);
		copy_field(r->cat, f[1]);
		copy_field(r->meas_txt, f[2]);
		r->meas = f[2] ? num(f[2]) : NAN;
		r->spread = f[3] ? strtod(f[3], NULL) : NAN;
		r->gus = f[4] ? num(f[4]) : NAN;
		r->mca = f[5] ? num(f[5]) : NAN;
		copy_field(r->samples, f[6]);
	}
	fclose(in);

	FILE *csv = fopen(argv[2], "w");
	if (!csv) {
		perror(argv[2]);
		return 1;
	}
	fprintf(csv, "kernel,category,measured,spread_pct,gus,gus_err_pct,llvm_mca,llvm_mca_err_pct,samples_kept\n");

	printf("%-16s %-9s %9s %6s %9s %7s %9s %7s\n", "kernel", "category",
	       "measured", "iqr%", "gus", "err%", "llvm-mca", "err%");
	size_t n_meas = 0, n_gus = 0, n_mca = 0, n_both = 0;
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		char ms[32], sp[32], gs[32], ge[32], cs[32], ce[32];
		if (isnan(r->meas))
			snprintf(ms, sizeof(ms), "%s", r->meas_txt[0] ? r->meas_txt : "n/a");
		else
			fmt_val(ms, sizeof(ms), r->meas);
		if (isnan(r->spread) || isnan(r->meas))
			snprintf(sp, sizeof(sp), "-");
		else
			snprintf(sp, sizeof(sp), "%.1f", r->spread);
		fmt_val(gs, sizeof(gs), r->gus);
		fmt_err(ge, sizeof(ge), r->gus, r->meas);
		fmt_val(cs, sizeof(cs), r->mca);
		fmt_err(ce, sizeof(ce), r->mca, r->meas);
		printf("%-16s %-9s %9s %6s %9s %7s %9s %7s\n", r->name, r->cat,
		       ms, sp, gs, ge, cs, ce);
		char cm[32], cg[32], cc[32];	/* more digits for the CSV */
		snprintf(cm, sizeof(cm), isnan(r->meas) ? "n/a" : "%.4f", r->meas);
		snprintf(cg, sizeof(cg), isnan(r->gus) ? "n/a" : "%.4f", r->gus);
		snprintf(cc, sizeof(cc), isnan(r->mca) ? "n/a" : "%.4f", r->mca);
		fprintf(csv, "%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r->name, r->cat, cm, sp,
			cg, ge, cc, ce, r->samples);
		if (!isnan(r->meas)) {
			n_meas++;
			n_gus += !isnan(r->gus);
			n_mca += !isnan(r->mca);
			n_both += !isnan(r->gus) && !isnan(r->mca);
		}
	}
	if (fclose(csv)) {
		perror(argv[2]);
		return 1;
	}

	printf("\nkernels: %zu listed, %zu measured, gus predicted %zu, llvm-mca predicted %zu, both %zu\n",
	       nrows, n_meas, n_gus, n_mca, n_both);
	if (n_gus < n_meas)
		printf("gus: %zu measured kernel(s) without a gus prediction (n/a) are left out of gus's statistics\n",
		       n_meas - n_gus);
	if (n_mca < n_meas)
		printf("llvm-mca: %zu measured kernel(s) without an llvm-mca prediction are left out of its statistics\n",
		       n_meas - n_mca);

	/* the comparison set: both predicted; without gus, llvm-mca alone */
	bool both = n_both > 0;
	printf("\nper category (%s):\n", both ? "kernels both predicted" :
	       "each predictor over the kernels it predicted");
	for (size_t i = 0; i < nrows; i++) {
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(rows[j].cat, rows[i].cat))
				seen = true;
		if (seen)
			continue;
		struct stat g = stats(0, both, rows[i].cat);
		struct stat m = stats(1, both, rows[i].cat);
		if (g.n || m.n)
			print_stat_line(rows[i].cat, g, m);
	}
	struct stat g = stats(0, both, NULL), m = stats(1, both, NULL);
	printf("\nall (%s):\n", both ? "kernels both predicted" :
	       "each predictor over the kernels it predicted");
	print_stat_line("all", g, m);
	if (both && (n_gus > n_both || n_mca > n_both)) {
		printf("each predictor over every kernel it predicted:\n");
		print_stat_line("all (own)", stats(0, false, NULL), stats(1, false, NULL));
	}
	if (!both && n_mca)
		printf("note: gus predicted no kernel, so llvm-mca's figures below cover its %zu kernels\n",
		       m.n);

	char gm[32], gt[32], mm[32], mt[32];
	fmt_pct(gm, sizeof(gm), g.mape);
	fmt_tau(gt, sizeof(gt), g.tau);
	fmt_pct(mm, sizeof(mm), m.mape);
	fmt_tau(mt, sizeof(mt), m.tau);
	if (both)
		printf("target (gus MAPE <= 10%% and below llvm-mca's): %s\n",
		       g.mape <= 10.0 && g.mape < m.mape ? "met" : "NOT met");
	else
		printf("target (gus MAPE <= 10%% and below llvm-mca's): not evaluated (no gus predictions)\n");
	printf("gus MAPE %s tau %s | llvm-mca MAPE %s tau %s\n", gm, gt, mm, mt);
	return 0;
}
