/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What SPIRE counts (gus stat -I --spire, gus record --spire): the
 * metric set of the CPU or --metrics, T and W, and how many metrics fit a
 * group. */
#include "rec_internal.h"
#include "spire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


void recording_spire_pick_free(struct recording_spire_pick *sp)
{
	spire_metricset_free(sp->set);
	free(sp->enc);
	free(sp->names);
	free(sp->list);
	memset(sp, 0, sizeof(*sp));
}

static bool same_event(const char *a, const char *b)
{
	char ka[256], kb[256];
	spire_event_key(a, ka, sizeof(ka));
	spire_event_key(b, kb, sizeof(kb));
	return !strcmp(ka, kb);
}

static bool set_for_cpu(const struct spire_metricset *set, const char *pmu)
{
	for (size_t i = 0; set && i < set->n_cpus; i++)
		if (!strcmp(set->cpus[i], pmu))
			return true;
	return false;
}

static enum recording_status pick_add(struct recording_spire_pick *sp, const char *enc, const char *name,
				      const struct recording_log *log)
{
	for (size_t i = 0; i < sp->n; i++)
		if (same_event(sp->names[i], name))
			return rec_usage(log, "--%smetrics names %s twice", sp->opt, name);
	if (same_event(name, sp->time_name) || same_event(name, sp->work_name))
		return rec_usage(log, "--%smetrics: %s is the %s event; SPIRE's metrics are other events", sp->opt, name,
				       same_event(name, sp->time_name) ? "time (T)" : "work (W)");
	const char **ne = realloc(sp->enc, (sp->n + 1) * sizeof(*ne));
	if (ne)
		sp->enc = ne;
	const char **nn = realloc(sp->names, (sp->n + 1) * sizeof(*nn));
	if (nn)
		sp->names = nn;
	if (!ne || !nn) {
		rec_error(log, "out of memory");
		return RECORDING_ERROR;
	}
	sp->enc[sp->n] = enc;
	sp->names[sp->n] = name;
	sp->n++;
	return 0;
}

/* T or W: the set's event when EVENT is it (or not given), else EVENT as
 * given; without a set the default is perf's generic cycles/instructions,
 * which the kernel maps to the same fixed counters */
static void pick_tw(struct recording_spire_pick *sp, const char *event, bool time)
{
	const char *dflt = time ? SPIRE_DEFAULT_TIME : SPIRE_DEFAULT_WORK;
	const char *set_ev = sp->set ? (time ? sp->set->time_event : sp->set->work_event) : NULL;
	const char *set_pfm = sp->set ? (time ? sp->set->time_pfm : sp->set->work_pfm) : NULL;
	const char **enc = time ? &sp->time_enc : &sp->work_enc;
	const char **name = time ? &sp->time_name : &sp->work_name;
	if (!event)
		event = set_ev ? set_ev : dflt;
	if (set_ev && same_event(event, set_ev)) {
		*enc = set_pfm;
		*name = set_ev;
		sp->uses_set = true;
	} else if (!sp->set && same_event(event, dflt)) {
		*enc = time ? "cycles" : "instructions";
		*name = dflt;
	} else {
		*enc = *name = event;
	}
}

/* Chooses the metric set, T, W and the metrics: RECORDING_OK, or the
 * status with the message logged. */
static enum recording_status spire_choose(const struct recording_spire_request *o, const struct collect_pmu_info *pmu,
					  bool have_pmu, struct recording_spire_pick *sp,
					  const struct recording_log *log)
{
	char err[SPIRE_ERRLEN];
	const char *dir = o->spire_dir;
	memset(sp, 0, sizeof(*sp));
	sp->opt = o->opt;
	/* a copy: PMU is the caller's local, gone once the pick is prepared */
	if (have_pmu)
		snprintf(sp->cpu_name, sizeof(sp->cpu_name), "%s", pmu->name);
	sp->cpu = o->arch ? o->arch : have_pmu ? sp->cpu_name : NULL;
	if (o->arch) {
		if (!(sp->set = spire_metricset_load(dir, o->arch, err, sizeof(err)))) {
			rec_error(log, "%s; 'gus spire metrics' lists the sets", err);
			return RECORDING_ERROR;
		}
	} else if (have_pmu) {
		sp->set = spire_metricset_load(dir, pmu->name, err, sizeof(err));
	} else {
		snprintf(err, sizeof(err), "libpfm4 does not recognise this CPU");
	}
	if (!sp->set && !o->metrics) {
		rec_error(log, "%s%s%s%s. Name a set with --%sarch ID (counting needs a CPU of that set%s), "
			  "or count events of your choice with --%smetrics LIST (and --%stime EVENT, --%swork EVENT)",
			  have_pmu ? "this CPU is " : "", have_pmu ? pmu->name : "", have_pmu ? " (libpfm4): " : "",
			  err, o->opt, o->opt[0] ? "" : "; --print-events works anywhere", o->opt, o->opt, o->opt);
		return RECORDING_ERROR;
	}
	pick_tw(sp, o->time_event, true);
	pick_tw(sp, o->work_event, false);
	if (same_event(sp->time_name, sp->work_name))
		return rec_usage(log, "--%stime and --%swork name the same event (%s)", o->opt, o->opt, sp->time_name);

	if (!o->metrics) {
		bool smt = collect_smt_active();
		bool allowed = collect_perf_paranoid() <= 0 || geteuid() == 0;
		for (size_t i = 0; i < sp->set->n; i++) {
			const struct spire_metric_def *d = &sp->set->m[i];
			if (d->any_thread && (o->print_events || !smt || !allowed)) {
				size_t l = strlen(sp->left_out);
				snprintf(sp->left_out + l, sizeof(sp->left_out) - l, "%s%s (%s)", l ? ", " : "",
					 d->abbr, d->event);
				continue;
			}
			enum recording_status rc = pick_add(sp, d->pfm, d->event, log);
			if (rc)
				return rc;
			sp->uses_set = true;
		}
		if (!sp->n) {
			rec_error(log, "%s: every metric of the set needs AnyThread counting; name them with --%smetrics",
				  sp->set->origin, o->opt);
			return RECORDING_ERROR;
		}
		if (sp->left_out[0] && !o->print_events && smt)
			rec_warn(log, "left out %s: AnyThread events need kernel.perf_event_paranoid <= 0 "
				 "(or CAP_PERFMON); name them with --%smetrics to count them anyway", sp->left_out, o->opt);
		return 0;
	}
	size_t nitems;
	char **items = collect_split_events(o->metrics, &nitems);
	if (!items) {
		rec_error(log, "out of memory");
		return RECORDING_ERROR;
	}
	sp->list = (char *)items;	/* the names point into it */
	for (size_t i = 0; i < nitems; i++) {
		const char *start = items[i];
		if (!*start)
			return rec_usage(log, "--%smetrics: empty name in '%s'", o->opt, o->metrics);
		const struct spire_metric_def *d = spire_metricset_find(sp->set, start);
		enum recording_status rc;
		if (d) {
			rc = pick_add(sp, d->pfm, d->event, log);
			sp->uses_set = true;
		} else {
			struct perf_event_attr attr;
			char e2[COLLECT_ERRLEN];
			if (!o->print_events && collect_encode(start, o->user_only, &attr, e2, sizeof(e2))) {
				if (sp->set)
					return rec_usage(log, "--%smetrics: '%s' is neither a metric of the %s set "
							       "('gus spire metrics --cpu %s' lists them) nor an "
							       "event libpfm4 knows", o->opt, start, sp->set->id, sp->set->id);
				return rec_usage(log, "--%smetrics: '%s' is not an event libpfm4 knows, and "
						       "no SPIRE metric set is in use (this CPU has none; --%sarch "
						       "ID names one, 'gus spire metrics' lists them)", o->opt, start, o->opt);
			}
			rc = pick_add(sp, start, start, log);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* T or W takes a general-purpose counter unless it is a software event or
 * an event the kernel puts on a fixed counter (cycles, instructions,
 * reference cycles) */
static int general_counters_taken(const char *enc, bool user_only)
{
	struct perf_event_attr a;
	char err[COLLECT_ERRLEN];
	if (collect_encode(enc, user_only, &a, err, sizeof(err)))
		return 0;	/* refused later, with the message */
	if (a.type == PERF_TYPE_SOFTWARE)
		return 0;
	if (a.type == PERF_TYPE_HARDWARE)
		return a.config == PERF_COUNT_HW_CPU_CYCLES || a.config == PERF_COUNT_HW_INSTRUCTIONS ||
		       a.config == PERF_COUNT_HW_REF_CPU_CYCLES ? 0 : 1;
	/* event select and unit mask only: no cmask, inv, edge, any */
	uint64_t c = a.config & 0xffe4ffffull;
	return a.type == PERF_TYPE_RAW && (c == 0x003c || c == 0x00c0 || c == 0x0300) ? 0 : 1;
}


enum recording_status recording_spire_prepare(const struct recording_spire_request *rq,
					      const struct collect_pmu_info *pmu, bool have_pmu,
					      struct recording_spire_pick *sp, int *budget, char *note, size_t notelen,
					      const struct recording_log *log)
{
	enum recording_status rc = spire_choose(rq, pmu, have_pmu, sp, log);
	if (rc)
		return rc;
	bool native = have_pmu && (!sp->set || set_for_cpu(sp->set, pmu->name));
	if (sp->uses_set && !native && !rq->print_events) {
		char cpus[128] = "";
		for (size_t i = 0; i < sp->set->n_cpus; i++) {
			size_t l = strlen(cpus);
			snprintf(cpus + l, sizeof(cpus) - l, "%s%s", i ? ", " : "", sp->set->cpus[i]);
		}
		rec_error(log, "the %s metric set is for %s (libpfm4), and this CPU is %s: its libpfm4 names "
			  "would mean other events here. Count on one of those CPUs (LIBPFM_FORCE_PMU=%s "
			  "makes libpfm4 take this one for %s), or print the perf command with "
			  "--print-events", sp->set->id, cpus, have_pmu ? pmu->name : "not one libpfm4 knows",
			  sp->set->cpus[0], sp->set->cpus[0]);
		return RECORDING_ERROR;
	}
	/* another CPU's set (--print-events): 4 general counters per thread,
	 * safe with SMT on every CPU the sets are for */
	note[0] = 0;
	*budget = native ? collect_counter_budget(pmu, note, notelen) : 4;
	if (!rq->print_events)
		*budget -= general_counters_taken(sp->time_enc, rq->user_only) +
			   general_counters_taken(sp->work_enc, rq->user_only);
	if (*budget < 1)
		*budget = 1;
	return 0;
}
