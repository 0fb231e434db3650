/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus record: runs a program and records its execution into gus.data.
 * This version records the instruction stream with Intel PT (sideband,
 * AUX data, the vDSO, build-ids); where the machine has no PT it says so
 * with its own exit status and names the QEMU tracer. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "collect.h"
#include "gusdata.h"
#include "merge.h"

#define MAX_FILTERS 16

struct record_opts {
	const char *output;
	struct collect_pt_opts pt;
	struct collect_pt_filter filters[MAX_FILTERS];
	size_t nfilters;
	const char *filter_text[MAX_FILTERS];
	char **argv;
	bool quiet;
};

static void record_usage(FILE *out)
{
	fprintf(out,
		"usage: gus record [options] -- program args\n"
		"\n"
		"Runs the program and records its execution into gus.data: the\n"
		"instruction stream with Intel PT.\n"
		"\n"
		"  -o, --output FILE        the recording (default gus.data; an existing one\n"
		"                           becomes FILE.old)\n"
		"      --pt-mode MODE       full (default): every byte of trace; snapshot: a\n"
		"                           circular buffer saved on SIGUSR2 to gus and at exit\n"
		"      --pt-filter FILTER   trace only START-END[@FILE], START/SIZE[@FILE] or\n"
		"                           SYMBOL[@FILE]; 'stop FILTER' stops tracing there;\n"
		"                           repeat for more ranges\n"
		"      --pt-aux-size SIZE   trace buffer per CPU (default 4M as root, else 256K;\n"
		"                           K, M, G suffixes)\n"
		"      --pt-data-size SIZE  sideband buffer per CPU (default 512K as root, else 64K)\n"
		"      --pt-timing          add timing packets (MTC, CYC)\n"
		"      --pt-kernel          trace the kernel too (needs privileges)\n"
		"  -q, --quiet              no progress or summary on the terminal\n"
		"  -h, --help               this help; 'gus help record' shows the manual\n");
}

/* SIZE with K/M/G suffixes into pages, a power of two */
static int parse_pages(const char *opt, const char *s, size_t *pages)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || errno)
		return gus_usage_error("%s: '%s' is not a size", opt, s);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	case '\0': break;
	default: return gus_usage_error("%s: '%s' is not a size (K, M or G suffix)", opt, s);
	}
	if (*end == 'b' || *end == 'B')
		end++;
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long n = v / (unsigned long long)(page > 0 ? page : 4096);
	if (*end || n < 2 || n > (1ull << 20) || (n & (n - 1)))
		return gus_usage_error("%s: '%s' must be a power-of-two number of pages from 8K to 4G", opt, s);
	*pages = (size_t)n;
	return 0;
}

static int resolve_symbol(void *ctx, const char *file, const char *symbol, uint64_t *start, uint64_t *size,
			  char *err, size_t errlen)
{
	(void)ctx;
	return merge_elf_symbol(file, symbol, start, size, err, errlen);
}

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pt-mode", required_argument, NULL, 'm' },
		{ "pt-filter", required_argument, NULL, 'f' },
		{ "pt-aux-size", required_argument, NULL, 'a' },
		{ "pt-data-size", required_argument, NULL, 'd' },
		{ "pt-kernel", no_argument, NULL, 'k' },
		{ "pt-timing", no_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	memset(o, 0, sizeof *o);
	o->output = "gus.data";
	o->pt.mode = COLLECT_PT_FULL;
	/* 0: collect/ picks sizes that fit the locked-memory limit of the user */
	o->pt.aux_pages = 0;
	o->pt.data_pages = 0;
	int c, rc;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'm':
			if (!strcmp(optarg, "full"))
				o->pt.mode = COLLECT_PT_FULL;
			else if (!strcmp(optarg, "snapshot"))
				o->pt.mode = COLLECT_PT_SNAPSHOT;
			else
				return gus_usage_error("--pt-mode: '%s' is not full or snapshot", optarg);
			break;
		case 'f':
			if (o->nfilters == MAX_FILTERS)
				return gus_usage_error("--pt-filter: at most %d filters", MAX_FILTERS);
			o->filter_text[o->nfilters++] = optarg;
			break;
		case 'a':
			if ((rc = parse_pages("--pt-aux-size", optarg, &o->pt.aux_pages)))
				return rc;
			break;
		case 'd':
			if ((rc = parse_pages("--pt-data-size", optarg, &o->pt.data_pages)))
				return rc;
			break;
		case 'k': o->pt.kernel = true; break;
		case 't': o->pt.timing = true; break;
		case 'q': o->quiet = true; break;
		case 'h':
			record_usage(stdout);
			exit(GUS_EXIT_OK);
		default:
			if (optopt && optopt != '?')
				return gus_usage_error("record: option '-%c' %s", optopt,
						       strchr("o", optopt) ? "needs an argument" : "is unknown");
			return gus_usage_error("record: unknown option or missing argument in '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return gus_usage_error("record: no program given: gus record [options] -- program args");
	o->argv = argv + optind;
	return 0;
}

static void record_progress(void *ctx, uint64_t bytes)
{
	(void)ctx;
	fprintf(stderr, "\r[ gus record: %.1f MB of trace ]", (double)bytes / (1 << 20));
	fflush(stderr);
}

/* what decoding and the report need to know about the machine and run */
static void record_meta(struct gusdata *d, char **argv, const char *exe)
{
	char buf[8192];
	size_t k = 0;
	for (char **a = argv; *a && k < sizeof buf - 1; a++)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", a == argv ? "" : " ", *a);
	gusdata_set_meta(d, "command", buf);
	gusdata_set_meta(d, "exe", exe);
	if (getcwd(buf, sizeof buf))
		gusdata_set_meta(d, "cwd", buf);
	struct utsname u;
	if (uname(&u) == 0) {
		gusdata_set_meta(d, "hostname", u.nodename);
		snprintf(buf, sizeof buf, "%s %s %s", u.sysname, u.release, u.machine);
		gusdata_set_meta(d, "kernel", buf);
	}
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[512];
		while (fgets(line, sizeof line, f)) {
			char *colon = strchr(line, ':');
			if (!colon)
				continue;
			char *v = colon + 1 + (colon[1] == ' ');
			v[strcspn(v, "\n")] = 0;
			if (!strncmp(line, "model name", 10))
				gusdata_set_meta(d, "cpu.name", v);
			else if (!strncmp(line, "cpu family", 10))
				gusdata_set_meta(d, "cpu.family", v);
			else if (!strncmp(line, "model\t", 6))
				gusdata_set_meta(d, "cpu.model", v);
			else if (!strncmp(line, "stepping", 8))
				gusdata_set_meta(d, "cpu.stepping", v);
			else if (!strncmp(line, "processor", 9) && strcmp(v, "0"))
				break;
		}
		fclose(f);
	}
	gusdata_set_meta(d, "tracer", "pt");
	gusdata_set_meta_u64(d, "start_time", (uint64_t)time(NULL));
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc;
	char err[COLLECT_ERRLEN];
	char exe[PATH_MAX];
	/* the program first: a typo should not cost a PT probe message */
	if ((rc = gus_find_program(o.argv[0], exe, sizeof exe)))
		return rc;
	char *abs = realpath(exe, NULL);
	if (abs) {
		snprintf(exe, sizeof exe, "%s", abs);
		free(abs);
	}
	for (size_t i = 0; i < o.nfilters; i++) {
		if (collect_pt_filter_parse(o.filter_text[i], exe, resolve_symbol, NULL, &o.filters[i], err,
					    sizeof err)) {
			for (size_t j = 0; j < i; j++)
				collect_pt_filter_free(&o.filters[j]);
			return gus_usage_error("--pt-filter: %s", err);
		}
	}
	o.pt.filters = o.filters;
	o.pt.nfilters = o.nfilters;

	struct collect_pt_info info;
	enum collect_status st = collect_pt_probe(NULL, &info, err, sizeof err);
	if (st != COLLECT_OK) {
		gus_error("%s", err);
		rc = st == COLLECT_NO_PMU ? GUS_EXIT_NO_PT : GUS_EXIT_ERROR;
		goto out;
	}
	struct gusdata *d;
	if (gusdata_create(o.output, &d, err, sizeof err)) {
		gus_error("%s", err);
		rc = GUS_EXIT_ERROR;
		goto out;
	}
	record_meta(d, o.argv, exe);
	if (!o.quiet && isatty(2)) {
		o.pt.progress = record_progress;
		o.pt.progress_ctx = NULL;
	}
	struct collect_pt_stats stats;
	struct collect_result res;
	memset(&res, 0, sizeof res);
	st = collect_pt_record(o.argv, &o.pt, d, &stats, &res, err, sizeof err);
	if (o.pt.progress)
		fputc('\n', stderr);
	if (st != COLLECT_OK && !stats.aux_bytes && !stats.mmaps) {
		/* nothing recorded: leave no file that looks like a recording */
		gusdata_close(d);
		unlink(o.output);
		gus_error("%s", err);
		if (st == COLLECT_EXEC_FAILED)
			rc = res.exec_errno == ENOENT ? GUS_EXIT_NOT_FOUND : GUS_EXIT_CANNOT_EXECUTE;
		else
			rc = st == COLLECT_NO_PERMISSION ? GUS_EXIT_NO_PERMISSION
			     : st == COLLECT_NO_PMU     ? GUS_EXIT_NO_PT
							: GUS_EXIT_ERROR;
		goto out;
	}
	if (st != COLLECT_OK) {
		gus_warn("%s", err);
		gusdata_set_meta(d, "missing.pt", err);
	}
	int status = collect_exit_code(res.wait_status);
	gusdata_set_meta_u64(d, "exit_status", (uint64_t)status);
	gusdata_set_meta_u64(d, "wait_status", (uint64_t)res.wait_status);
	if (res.interrupted)
		gusdata_set_meta(d, "interrupted", "yes");
	gusdata_close(d);
	if (!o.quiet) {
		fprintf(stderr, "[ gus record: %.2f MB of Intel PT from %d CPU(s) in %s", (double)stats.aux_bytes / (1 << 20),
			stats.ncpus, o.output);
		if (stats.truncated || stats.lost_records || stats.collisions || stats.overwritten)
			fprintf(stderr, "; LOST: %llu truncated AUX record(s), %llu lost sideband record(s), "
				"%llu collision(s), %llu overwritten snapshot(s)",
				(unsigned long long)stats.truncated, (unsigned long long)stats.lost_records,
				(unsigned long long)stats.collisions, (unsigned long long)stats.overwritten);
		fprintf(stderr, " ]\n");
	}
	rc = status;
out:
	for (size_t i = 0; i < o.nfilters; i++)
		collect_pt_filter_free(&o.filters[i]);
	return rc;
}
