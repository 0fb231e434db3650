/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The host: the TMA table of its CPU (gus stat, gus record), its programs. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec_internal.h"
#include "sim.h"
#include "topdown.h"

struct td_table *recording_tma_table(const char *tma_dir, const char *arch, bool counting,
				     struct collect_pmu_info *pmu, bool *have_pmu, const struct recording_log *log,
				     enum recording_status *why)
{
	char err[COLLECT_ERRLEN];
	struct td_table *t;
	*have_pmu = false;
	*why = RECORDING_ERROR;
	if (collect_pfm_init(err, sizeof(err)) == 0 && collect_detect_pmu(pmu) == 0)
		*have_pmu = true;
	if (counting && !arch) {
		/* libpfm4 names a CPU from CPUID alone, also inside a virtual
		 * machine that has no counters: the counters decide */
		enum collect_status st = collect_probe_hw_counters(err, sizeof(err));
		if (st != COLLECT_OK) {
			rec_error(log, "%s", err);
			*why = rec_status(st, 0);
			return NULL;
		}
	}
	if (arch) {
		t = td_table_load_arch(tma_dir, arch, err, sizeof(err));
		if (!t)
			rec_error(log, "%s (gus list shows the tables)", err);
		return t;
	}
	/* the CPU as CPUID names it, also where a hypervisor masks the model
	 * libpfm4 goes by */
	struct collect_host_cpu host;
	collect_host_cpu(&host);
	if (host.tma[0] && (t = td_table_load_arch(tma_dir, host.tma, err, sizeof(err))))
		return t;
	if (!*have_pmu) {
		rec_error(log, "libpfm4 does not recognise this CPU's core PMU; name a table with --arch (clx, skx, icx, spr, zen4, zen5; gus list shows them)");
		return NULL;
	}
	t = td_table_load_pmu(tma_dir, pmu->name, err, sizeof(err));
	if (!t)
		rec_error(log, "%s: this CPU (%s: %s; libpfm4 '%s') has no TMA table; use --arch to pick one", err,
			  host.name, host.why, pmu->name);
	return t;
}

/* The table ids (ID.tma) of DIRS (one directory, or a ':'-separated list
 * of them: an id is listed once), sorted */
static size_t list_ids(const char *dirs, const char *suffix, char ids[][16], size_t max)
{
	size_t n = 0, sl = strlen(suffix);
	char list[4096];
	snprintf(list, sizeof list, "%s", dirs);
	char *save = NULL;
	for (char *dir = strtok_r(list, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && (e = readdir(d)) && n < max) {
			size_t l = strlen(e->d_name);
			if (l <= sl || l - sl >= 16 || strcmp(e->d_name + l - sl, suffix))
				continue;
			snprintf(ids[n], 16, "%.*s", (int)(l - sl), e->d_name);
			bool dup = false;
			for (size_t k = 0; k < n && !dup; k++)
				dup = !strcmp(ids[k], ids[n]);
			n += !dup;
		}
		if (d)
			closedir(d);
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(ids[j - 1], ids[j]) > 0; j--) {
			char t[16];
			memcpy(t, ids[j], 16);
			memcpy(ids[j], ids[j - 1], 16);
			memcpy(ids[j - 1], t, 16);
		}
	return n;
}

/* the server tables' preference when several tables know a file's events */
static int server_rank(const char *id)
{
	static const char *const order[] = { "clx", "spr", "icx", "emr", "skx", "srf" };
	for (size_t i = 0; i < sizeof order / sizeof *order; i++)
		if (!strcmp(order[i], id))
			return (int)i;
	return 100;
}

struct td_table *recording_tma_table_of_counts(const char *tma_dir, const struct td_countset *cs, char *why,
					       size_t whylen)
{
	char ids[64][16];
	size_t n = list_ids(tma_dir, ".tma", ids, 64);
	struct td_table *best = NULL;
	size_t best_known = 0, loaded = 0, tied = 0;
	for (size_t i = 0; i < n; i++) {
		char err[TD_ERRLEN];
		struct td_table *t = td_table_load_arch(tma_dir, ids[i], err, sizeof err);
		if (!t)
			continue;
		loaded++;
		size_t known = 0;
		for (size_t k = 0; k < cs->n; k++)
			known += td_table_find_event(t, cs->c[k].event) >= 0;
		/* the servers' tables first when several know the events alike:
		 * a Skylake-era file is a Broadwell one too */
		bool better = known > best_known ||
			      (known && known == best_known && server_rank(t->id) < server_rank(best->id));
		if (known && known == best_known)
			tied++;
		if (known > best_known)
			tied = 0;
		if (better) {
			td_table_free(best);
			best = t;
			best_known = known;
		} else {
			td_table_free(t);
		}
	}
	/* a few events in common say nothing: most of the file's must be
	 * the table's */
	if (best && 2 * best_known < cs->n) {
		snprintf(why, whylen, "no TMA table knows most of its events (the %s table, the closest, %zu of %zu)",
			 best->id, best_known, cs->n);
		td_table_free(best);
		return NULL;
	}
	if (best)
		snprintf(why, whylen, "its events are the %s table's (%zu of %zu)%s", best->id, best_known, cs->n,
			 tied ? "; other tables know them too" : "");
	else if (loaded)
		snprintf(why, whylen, "no TMA table knows most of its events (none knows any of its %zu)", cs->n);
	else
		snprintf(why, whylen, "no TMA table in %s", tma_dir);
	return best;
}

void recording_machine_for_cpu(const char *machines_dir, const struct collect_host_cpu *cpu, const char *whose,
			       const char *what, char *id, size_t idlen, char *why, size_t whylen)
{
	char ids[32][16];
	const char *avail[32];
	size_t n = list_ids(machines_dir, ".mm", ids, 32);
	for (size_t i = 0; i < n; i++)
		avail[i] = ids[i];
	const char *pick = collect_nearest_core(cpu->core, avail, n);
	snprintf(id, idlen, "%s", pick ? pick : "skx");
	bool intel = !strcmp(cpu->vendor, "GenuineIntel") || !strncmp(cpu->why, "GUS_CPU=", 8);
	if (pick && !strcmp(pick, cpu->core) && intel)
		snprintf(why, whylen, "%s: %s (%s)", whose, cpu->name, cpu->why);
	else if (intel && cpu->core[0])
		snprintf(why, whylen, "the nearest to %s, %s (%s; gus has no model of its core, %s)", what, cpu->name,
			 cpu->why, cpu->core);
	else
		snprintf(why, whylen, "the nearest to %s, %s (%s)", what, cpu->name, cpu->why);
}

void recording_host_machine(const char *machines_dir, char *id, size_t idlen, char *why, size_t whylen)
{
	struct collect_host_cpu host;
	collect_host_cpu(&host);
	recording_machine_for_cpu(machines_dir, &host, "the host's", "the host", id, idlen, why, whylen);
}

enum recording_status recording_find_program(const char *name, char *out, size_t outlen,
					     const struct recording_log *log)
{
	if (strchr(name, '/')) {
		snprintf(out, outlen, "%s", name);
		if (access(out, F_OK) != 0) {
			rec_error(log, "%s: %s", name, strerror(errno));
			return RECORDING_NOT_FOUND;
		}
		if (access(out, X_OK) != 0) {
			rec_error(log, "%s: not executable", name);
			return RECORDING_CANNOT_EXECUTE;
		}
		return RECORDING_OK;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		/* an empty PATH entry is the current directory */
		snprintf(out, outlen, "%.*s/%s", (int)n, n ? path : ".", name);
		struct stat st;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return RECORDING_OK;
		path += n + (colon ? 1 : 0);
	}
	rec_error(log, "%s: command not found", name);
	return RECORDING_NOT_FOUND;
}

int recording_catalog(const char *tma_dir, const char *machines_dir, struct recording_catalog *c, char *err,
		      size_t errlen)
{
	memset(c, 0, sizeof *c);
	char ids[64][16];
	size_t n = list_ids(tma_dir, ".tma", ids, 64);
	for (size_t i = 0; i < n; i++) {
		struct td_table *t = td_table_load_arch(tma_dir, ids[i], err, errlen);
		if (!t) {
			recording_catalog_free(c);
			return -1;
		}
		/* an id another table serves as an alias (skx: the hand-written
		 * clx) is listed once, with that table */
		bool seen = false;
		for (size_t k = 0; k < c->ntables && !seen; k++)
			seen = !strcmp(c->tables[k]->id, t->id);
		if (seen) {
			td_table_free(t);
			continue;
		}
		c->tables[c->ntables++] = t;
	}
	n = list_ids(machines_dir, ".mm", ids, 64);
	for (size_t i = 0; i < n && c->nmachines < 64; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s.mm", machines_dir, ids[i]);
		struct sim_machine *m = sim_machine_load(path, err, errlen);
		if (!m) {
			recording_catalog_free(c);
			return -1;
		}
		c->machines[c->nmachines++] = m;
	}
	struct collect_host_cpu host;
	collect_host_cpu(&host);
	/* the core model gus takes for it: its own, or the nearest there is */
	const char *avail[64];
	for (size_t i = 0; i < c->nmachines; i++)
		avail[i] = sim_machine_name(c->machines[i]);
	const char *pick = host.core[0] ? collect_nearest_core(host.core, avail, c->nmachines) : NULL;
	char core[96] = "";
	if (pick && !strcmp(pick, host.core))
		snprintf(core, sizeof core, "; core %s", pick);
	else if (pick)
		snprintf(core, sizeof core, "; core %s (no %s model here: the nearest)", pick, host.core);
	snprintf(c->host, sizeof c->host, "%s (%s)%s%s%s", host.name, host.why, host.tma[0] ? "; TMA table " : "",
		 host.tma, core);
	return 0;
}

void recording_catalog_free(struct recording_catalog *c)
{
	for (size_t i = 0; i < c->ntables; i++)
		td_table_free(c->tables[i]);
	for (size_t i = 0; i < c->nmachines; i++)
		sim_machine_free(c->machines[i]);
	memset(c, 0, sizeof *c);
}

struct td_table *recording_tma_table_for_import(const char *tma_dir, const char *arch, const struct td_countset *cs,
					       const char *name, const struct recording_log *log,
					       enum recording_status *why)
{
	struct collect_pmu_info pmu;
	bool have_pmu;
	enum recording_status pick = RECORDING_OK;
	struct recording_log quiet = { 0 };
	struct td_table *t = recording_tma_table(tma_dir, arch, false, &pmu, &have_pmu, arch ? log : &quiet, &pick);
	*why = t ? RECORDING_OK : pick;
	if (arch)
		return t;
	size_t known = 0;
	for (size_t i = 0; t && i < cs->n; i++)
		known += td_table_find_event(t, cs->c[i].event) >= 0;
	if (t && known == cs->n)
		return t;
	/* this CPU has no table, one that knows too few of the events, or
	 * one that knows fewer than another table (Zen 4's and Zen 5's share
	 * most event names: a file of the other's) */
	char reason[512];
	struct td_table *other = recording_tma_table_of_counts(tma_dir, cs, reason, sizeof reason);
	size_t other_known = 0;
	for (size_t i = 0; other && i < cs->n; i++)
		other_known += td_table_find_event(other, cs->c[i].event) >= 0;
	if (other && t && 2 * known >= cs->n && other_known <= known) {
		td_table_free(other);
		return t;
	}
	if (other) {
		if (t)
			rec_say_whole(log, RECORDING_MSG_WARNING, "%s: %s, not this CPU's (%s): Top-Down with it "
				      "(--arch names another)", name, reason, t->id);
		else
			rec_say_whole(log, RECORDING_MSG_WARNING, "%s: %s: Top-Down with it (--arch names another)",
				      name, reason);
		td_table_free(t);
		*why = RECORDING_OK;
		return other;
	}
	if (t)
		return t;
	rec_say_whole(log, RECORDING_MSG_ERROR, "%s: %s, and this CPU has none; name one with --arch (clx, skx, "
		      "icx, spr, zen4, zen5; gus list shows them)", name, reason);
	*why = RECORDING_ERROR;
	return NULL;
}
