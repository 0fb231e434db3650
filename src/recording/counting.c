/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus stat's counting (recording.h): what its TMA tree counts here, the
 * TMA set or -e events counted in one run (or one per group), interval
 * counting for -I and --spire, and the perf commands that count the same
 * on another machine. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "rec_internal.h"
#include "spire.h"
#include "topdown.h"

enum recording_status recording_stat_tma(const char *tma_dir, const char *arch, bool counting, int level,
					 const char *nodes, int smt, const struct recording_log *log,
					 struct recording_stat_tma *out)
{
	char err[COLLECT_ERRLEN];
	struct collect_pmu_info pmu;
	bool have_pmu;
	enum recording_status st;
	memset(out, 0, sizeof *out);
	if (!(out->table = recording_tma_table(tma_dir, arch, counting, &pmu, &have_pmu, log, &st)))
		return st;
	if (!(out->select = td_select_nodes(out->table, level, nodes, err, sizeof(err))))
		return rec_usage(log, "stat: %s", err);
	/* which CPU chose the table, said with the tree */
	if (!arch) {
		struct collect_host_cpu host;
		collect_host_cpu(&host);
		snprintf(out->cpu, sizeof out->cpu, "%s (%s)", host.name, host.why);
	}
	if (!(out->needed = calloc(out->table->n_events + 1, sizeof(*out->needed))))
		return RECORDING_ERROR;
	out->smt_on = smt >= 0 ? smt == 1 : collect_smt_active();
	td_needed_events(out->table, out->select, out->smt_on, out->needed);
	out->use_pfm = have_pmu && td_table_has_pmu(out->table, pmu.name);
	snprintf(out->pmu, sizeof out->pmu, "%s", have_pmu ? pmu.name : "unknown");
	/* another CPU's table: the general counters per thread its counters
	 * line says (AMD's 6; counting here, less the NMI watchdog's; a perf
	 * command printed runs elsewhere), else 4, safe with SMT on for every
	 * Intel table */
	struct collect_pmu_info said = { .generic_counters = out->table->counters, .forced = true };
	if (out->use_pfm)
		out->budget = collect_counter_budget(&pmu, out->note, sizeof(out->note));
	else if (out->table->counters && counting)
		out->budget = collect_counter_budget(&said, out->note, sizeof(out->note));
	else
		out->budget = out->table->counters ? out->table->counters : 4;
	/* a hybrid CPU: each core type has its PMU and its table; the events
	 * count only while the program runs on the table's */
	if (out->table->perf_pmu && collect_pmu_type(out->table->perf_pmu) >= 0) {
		out->on_core_pmu = true;
		size_t l = strlen(out->note);
		snprintf(out->note + l, sizeof out->note - l,
			 "%scounted on the %s PMU: only while the program ran on those cores (%s); the other core "
			 "type has its own table (gus list)",
			 l ? "; " : "", out->table->perf_pmu, out->table->full_name);
	}
	return RECORDING_OK;
}

void recording_stat_tma_free(struct recording_stat_tma *p)
{
	td_table_free(p->table);
	free(p->select);
	free(p->needed);
	memset(p, 0, sizeof *p);
}

/* the perf stat command that counts PLAN of T */
static void print_perf_command(FILE *out, const struct td_table *t, const struct collect_plan *plan, char **argv,
			       bool user_only)
{
	fprintf(out, "perf stat -x, -e '");
	for (size_t i = 0; i < plan->n; i++) {
		const struct collect_event *ce = &plan->ev[i];
		bool first = i == 0 || plan->ev[i - 1].group != ce->group;
		bool last = i + 1 == plan->n || plan->ev[i + 1].group != ce->group;
		int e = td_table_find_event(t, ce->name);
		const struct td_event *ev = &t->events[e];
		fprintf(out, "%s%s", i && first ? "," : "", first ? "{" : ",");
		if (ev->kind != TD_EV_GENERAL && ev->n_aliases && t->perf_pmu) {
			fprintf(out, "%s/%s/%s", t->perf_pmu, ev->aliases[0], user_only ? "u" : "");
		} else if (ev->kind != TD_EV_GENERAL && ev->n_aliases) {
			fprintf(out, "%s%s", ev->aliases[0], user_only ? ":u" : "");	/* slots, topdown-*, cycles */
		} else {
			uint64_t c = ev->config;
			char lower[128];
			size_t k;
			for (k = 0; ev->name[k] && k + 1 < sizeof(lower); k++)
				lower[k] = (char)(ev->name[k] >= 'A' && ev->name[k] <= 'Z' ? ev->name[k] + 32 : ev->name[k]);
			lower[k] = 0;
			/* a hybrid CPU's table: its core type's PMU */
			/* AMD's event select: bits 11:8 in config bits 35:32 (perf's
			 * event=config:0-7,32-35 there) */
			fprintf(out, "%s/event=0x%02x,umask=0x%02x", t->perf_pmu ? t->perf_pmu : "cpu",
				(unsigned)((c & 0xff) | (c >> 32 & 0xf) << 8), (unsigned)((c >> 8) & 0xff));
			if ((c >> 24) & 0xff)
				fprintf(out, ",cmask=%u", (unsigned)((c >> 24) & 0xff));
			if (c & (1ull << 18))
				fprintf(out, ",edge=1");
			if (c & (1ull << 21))
				fprintf(out, ",any=1");
			if (c & (1ull << 23))
				fprintf(out, ",inv=1");
			/* perf's generic term: frontend=, offcore_rsp= and ldlat=
			 * are all config1 */
			if (ev->config1)
				fprintf(out, ",config1=0x%llx", (unsigned long long)ev->config1);
			fprintf(out, ",name=%s/%s", lower, user_only ? "u" : "");
		}
		if (last)
			fputc('}', out);
	}
	fprintf(out, "' -o counts.csv -- ");
	if (argv && argv[0])
		for (int i = 0; argv[i]; i++)
			fprintf(out, "%s%s", i ? " " : "", argv[i]);
	else
		fprintf(out, "PROGRAM ARGS");
	fputc('\n', out);
	if (plan->n_groups > 1)
		fprintf(out, "# %d groups of at most %d general counters: perf multiplexes them (each counts part of "
			     "the time)\n", plan->n_groups, plan->budget);
	fprintf(out, "# then: gus stat --import counts.csv --arch %s -l N\n", t->id);
}

enum recording_status recording_print_tma_command(FILE *out, const struct recording_stat_tma *tma, char **argv,
						  bool user_only, const struct recording_log *log)
{
	char err[COLLECT_ERRLEN];
	struct collect_plan plan = { 0 };
	enum recording_status st = RECORDING_OK;
	if (collect_plan_tma(tma->table, tma->needed, tma->budget, false, user_only, &plan, err, sizeof(err))) {
		rec_error(log, "%s", err);
		st = RECORDING_ERROR;
	} else {
		print_perf_command(out, tma->table, &plan, argv, user_only);
	}
	collect_plan_free(&plan);
	return st;
}

enum recording_status recording_import_counts(const char *path, const char *name, struct td_countset *cs,
					      const struct recording_log *log)
{
	char err[TD_ERRLEN];
	FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!in) {
		rec_say_whole(log, RECORDING_MSG_ERROR, "cannot open %s: %s", path, strerror(errno));
		return RECORDING_ERROR;
	}
	int rc = td_import_perf_csv(in, name, cs, err, sizeof(err));
	if (rc)
		rec_error(log, "%s", err);
	if (in != stdin)
		fclose(in);
	return rc ? RECORDING_ERROR : RECORDING_OK;
}

void recording_print_spire_command(FILE *out, unsigned interval_ms, bool user_only, char **argv,
				   const struct recording_spire_pick *sp, int budget)
{
	const char *mod = user_only ? ":u" : "";
	fprintf(out, "perf stat -I %u -x, -e '", interval_ms);
	for (size_t i = 0; i < sp->n; i++) {
		if (i % (size_t)budget == 0)
			fprintf(out, "%s{%s%s,%s%s", i ? "}," : "", sp->time_name, mod, sp->work_name, mod);
		fprintf(out, ",%s%s", sp->names[i], mod);
	}
	fprintf(out, "}' -o samples.csv -- ");
	if (argv && argv[0])
		for (int i = 0; argv[i]; i++)
			fprintf(out, "%s%s", i ? " " : "", argv[i]);
	else
		fprintf(out, "PROGRAM ARGS");
	fputc('\n', out);
	fprintf(out, "# %zu metric%s in groups of %d, each with its own %s and %s", sp->n, sp->n == 1 ? "" : "s",
		budget, sp->time_name, sp->work_name);
	if (sp->cpu)
		fprintf(out, ", for %s", sp->cpu);
	fputc('\n', out);
	if (sp->left_out[0])
		fprintf(out, "# left out: %s (AnyThread: needs kernel.perf_event_paranoid <= 0 and SMT on; "
			"add with --metrics)\n", sp->left_out);
	/* gus spire reads T and W from the file's records; perf writes no
	 * "# time:" comment, so other events than the defaults are named */
	char tw[512] = "";
	if (strcmp(sp->time_name, SPIRE_DEFAULT_TIME) || strcmp(sp->work_name, SPIRE_DEFAULT_WORK))
		snprintf(tw, sizeof(tw), " --time %s --work %s", sp->time_name, sp->work_name);
	fprintf(out, "# then train on such files from many programs:  gus spire train -o model.spire%s%s%s "
		"samples.csv ...\n", sp->cpu ? " --cpu " : "", sp->cpu ? sp->cpu : "", tw);
	fprintf(out, "# or analyze one with a trained model:        gus spire analyze -m model.spire%s%s "
		"samples.csv\n", sp->cpu ? " --cpu " : "", sp->cpu ? sp->cpu : "");
}

enum recording_status recording_count(const struct recording_count_request *rq, struct collect_plan *plan,
				      struct td_countset *cs, struct merge_run_info *run, bool *counted)
{
	char err[COLLECT_ERRLEN];
	struct collect_result res;
	const struct recording_log *log = &rq->log;
	bool user_only = rq->user_only;
	const struct recording_stat_tma *tma = rq->tma;
	*counted = false;
	/* the TMA table's choice readied libpfm4 already, or went without it */
	if (!tma && collect_pfm_init(err, sizeof(err))) {
		rec_error(log, "%s", err);
		return RECORDING_ERROR;
	}
	for (;;) {
		int prc = tma ? collect_plan_tma(tma->table, tma->needed, tma->budget, tma->use_pfm, user_only, plan,
						 err, sizeof(err))
			      : collect_plan_events(rq->events, user_only, plan, err, sizeof(err));
		if (prc) {
			rec_error(log, "%s", err);
			return RECORDING_ERROR;
		}
		int groups = rq->no_multiplex ? plan->n_groups : 1;
		enum collect_status st = COLLECT_OK;
		for (int g = 0; g < groups; g++) {
			st = collect_count(plan, rq->no_multiplex ? g : -1, rq->argv, cs, &res, err, sizeof(err));
			if (st != COLLECT_OK)
				break;
			run->runs = g + 1;
			run->seconds += res.seconds;
			run->exit_status = collect_exit_code(res.wait_status);
			run->interrupted = res.interrupted;
			*counted = true;
			if (res.interrupted) {
				if (g + 1 < groups)
					rec_warn(log, "interrupted: %d of %d runs done; the rest of the tree is not computable",
						 g + 1, groups);
				break;
			}
		}
		if (st == COLLECT_NO_PERMISSION && !user_only && !*counted) {
			rec_warn(log, "kernel-space counting is not allowed here; counting user space only");
			user_only = true;
			collect_plan_free(plan);
			continue;
		}
		run->user_only = user_only;
		if (st != COLLECT_OK && !*counted) {
			rec_error(log, "%s", err);
			return rec_status(st, res.exec_errno);
		}
		if (st != COLLECT_OK)
			rec_warn(log, "%s", err);
		return RECORDING_OK;
	}
}

/* counts the intervals given to the caller's sink (kernel counting is
 * given up for user space only before any was), with what each event of
 * PLAN is: a clock (in msec), its group */
struct interval_relay {
	const struct recording_interval_sink *sink;
	const struct collect_plan *plan;
	unsigned long n;
};

static int relay_interval(void *ctx, double t, const struct td_countset *cs)
{
	struct interval_relay *r = ctx;
	const struct collect_plan *plan = r->plan;
	struct merge_interval_event *ev = NULL;
	r->n++;
	if (cs->n == plan->n && (ev = calloc(cs->n + 1, sizeof *ev)))
		for (size_t i = 0; i < cs->n; i++)
			ev[i] = (struct merge_interval_event){ collect_event_is_clock(&plan->ev[i]),
							       plan->ev[i].group };
	int rc = r->sink->interval(r->sink->ctx, t, cs, ev, plan->n_groups);
	free(ev);
	return rc;
}

enum recording_status recording_intervals_prepare(const struct recording_spire_request *rq,
						  struct recording_spire_pick *sp, int *budget, char *note,
						  size_t notelen, const struct recording_log *log)
{
	char err[COLLECT_ERRLEN];
	struct collect_pmu_info pmu;
	if (collect_pfm_init(err, sizeof(err))) {
		rec_error(log, "%s", err);
		return RECORDING_ERROR;
	}
	bool have_pmu = collect_detect_pmu(&pmu) == 0;
	return rq ? recording_spire_prepare(rq, &pmu, have_pmu, sp, budget, note, notelen, log) : RECORDING_OK;
}

enum recording_status recording_count_intervals(const struct recording_interval_request *rq,
						struct collect_plan *plan, struct collect_result *res)
{
	char err[COLLECT_ERRLEN];
	const struct recording_log *log = &rq->log;
	const struct recording_spire_pick *sp = rq->spire;
	struct interval_relay relay = { .sink = &rq->sink, .plan = plan };
	struct collect_interval_sink sink = { .ctx = &relay, .interval = relay_interval };
	bool user_only = rq->user_only;
	enum collect_status st;
	for (;;) {
		int prc = sp ? collect_plan_spire(sp->time_enc, sp->time_name, sp->work_enc, sp->work_name, sp->enc,
						  sp->names, sp->n, rq->budget, user_only, plan, err, sizeof(err))
			     : collect_plan_events(rq->events, user_only, plan, err, sizeof(err));
		if (prc) {
			rec_error(log, "%s", err);
			return RECORDING_ERROR;
		}
		st = collect_count_intervals(plan, rq->argv, rq->interval_ms, &sink, NULL, res, err, sizeof(err));
		if (st == COLLECT_NO_PERMISSION && !user_only && !relay.n) {
			rec_warn(log, "kernel-space counting is not allowed here; counting user space only");
			user_only = true;
			collect_plan_free(plan);
			continue;
		}
		break;
	}
	if (st != COLLECT_OK) {
		rec_error(log, "%s", err);
		return rec_status(st, res->exec_errno);
	}
	return RECORDING_OK;
}
