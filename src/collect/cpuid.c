/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which CPU this is, for the TMA table and the core model gus assumes
 * (collect.h). The family and model CPUID gives name it on bare metal;
 * hypervisors often report another model number, but cannot hide the
 * instruction-set features programs test for without breaking them: AMX
 * and AVX512_FP16 came with Sapphire Rapids, AMX_FP16 with Granite Rapids,
 * the AVX-512 extensions of Ice Lake (VBMI2, GFNI), VNNI with Cascade
 * Lake. Facts from Intel's SDM (CPUID leaf 7) and its model-number lists.
 * AMD's family and model numbers name Zen 3, 4 and 5 (hypervisors pass
 * them through). */
#include "collect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_CPUID 1
#endif

void collect_cpuid_read(struct collect_cpuid *c)
{
	memset(c, 0, sizeof(*c));
#ifdef HAVE_CPUID
	unsigned a, b, d, e;
	if (!__get_cpuid(0, &a, &b, &e, &d))
		return;
	c->max_leaf = a;
	memcpy(c->vendor, &b, 4);
	memcpy(c->vendor + 4, &d, 4);
	memcpy(c->vendor + 8, &e, 4);
	__cpuid(1, c->leaf1[0], c->leaf1[1], c->leaf1[2], c->leaf1[3]);
	if (c->max_leaf >= 7) {
		__cpuid_count(7, 0, c->leaf7[0], c->leaf7[1], c->leaf7[2], c->leaf7[3]);
		if (c->leaf7[0] >= 1)
			__cpuid_count(7, 1, c->leaf7_1[0], c->leaf7_1[1], c->leaf7_1[2], c->leaf7_1[3]);
	}
	unsigned maxext = __get_cpuid_max(0x80000000, NULL);
	if (maxext >= 0x80000004) {
		for (unsigned l = 0; l < 3; l++) {
			unsigned r[4];
			__cpuid(0x80000002 + l, r[0], r[1], r[2], r[3]);
			memcpy(c->brand + 16 * l, r, sizeof r);
		}
	}
#endif
}

/* the family and model numbers as Linux shows them */
static void display_model(const struct collect_cpuid *c, unsigned *family, unsigned *model, unsigned *stepping)
{
	unsigned eax = c->leaf1[0];
	unsigned fam = (eax >> 8) & 0xf, mod = (eax >> 4) & 0xf;
	if (fam == 0xf)
		fam += (eax >> 20) & 0xff;
	if (fam == 6 || fam >= 0xf)
		mod |= ((eax >> 16) & 0xf) << 4;
	*family = fam;
	*model = mod;
	*stepping = eax & 0xf;
}

struct known_model {
	unsigned model;
	const char *name;
	const char *tma;	/* gus's TMA table, "" none */
	const char *core;	/* the core model that describes it */
};

/* Intel family 6 cores: their TMA table (hand-written for clx, icx, spr;
 * the others generated from the kernel's metric files, when the build had
 * them) and the core model that describes them (or is nearest). A hybrid
 * client's table is its performance cores' (the kernel's cpu_core). */
static const struct known_model intel_models[] = {
	{ 85, "Skylake-SP / Cascade Lake", "clx", "skx" },
	{ 106, "Ice Lake-SP", "icx", "icx" },
	{ 108, "Ice Lake-D", "icx", "icx" },
	{ 143, "Sapphire Rapids", "spr", "spr" },
	{ 207, "Emerald Rapids", "emr", "spr" },
	{ 173, "Granite Rapids", "", "gnr" },
	{ 174, "Granite Rapids-D", "", "gnr" },
	{ 175, "Sierra Forest", "srf", "" },
	{ 182, "Grand Ridge", "grr", "" },
	{ 42, "Sandy Bridge (client)", "snb", "skx" },
	{ 45, "Sandy Bridge-EP", "jkt", "skx" },
	{ 58, "Ivy Bridge (client)", "ivb", "skx" },
	{ 62, "Ivy Bridge-EP", "ivt", "skx" },
	{ 60, "Haswell (client)", "hsw", "skx" },
	{ 69, "Haswell (client)", "hsw", "skx" },
	{ 70, "Haswell (client)", "hsw", "skx" },
	{ 63, "Haswell-EP", "hsx", "skx" },
	{ 61, "Broadwell (client)", "bdw", "skx" },
	{ 71, "Broadwell (client)", "bdw", "skx" },
	{ 86, "Broadwell-DE", "bdwde", "skx" },
	{ 79, "Broadwell-EP", "bdx", "skx" },
	{ 78, "Skylake (client)", "skl", "skx" },
	{ 94, "Skylake (client)", "skl", "skx" },
	{ 142, "Kaby Lake / Coffee Lake (client)", "skl", "skx" },
	{ 158, "Kaby Lake / Coffee Lake (client)", "skl", "skx" },
	{ 165, "Comet Lake (client)", "skl", "skx" },
	{ 166, "Comet Lake (client)", "skl", "skx" },
	{ 125, "Ice Lake (client)", "icl", "icx" },
	{ 126, "Ice Lake (client)", "icl", "icx" },
	{ 140, "Tiger Lake (client)", "tgl", "icx" },
	{ 141, "Tiger Lake (client)", "tgl", "icx" },
	{ 167, "Rocket Lake (client)", "rkl", "icx" },
	{ 151, "Alder Lake (client, hybrid)", "adl-core", "spr" },
	{ 154, "Alder Lake (client, hybrid)", "adl-core", "spr" },
	{ 190, "Alder Lake-N (Gracemont)", "adln", "" },
	{ 183, "Raptor Lake (client, hybrid)", "adl-core", "spr" },
	{ 186, "Raptor Lake (client, hybrid)", "adl-core", "spr" },
	{ 191, "Raptor Lake (client, hybrid)", "adl-core", "spr" },
	{ 170, "Meteor Lake (client, hybrid)", "mtl-core", "gnr" },
	{ 172, "Meteor Lake (client, hybrid)", "mtl-core", "gnr" },
	{ 198, "Arrow Lake (client, hybrid)", "", "spr" },
	{ 189, "Lunar Lake (client, hybrid)", "", "spr" },
};

#define BIT(reg, n) (((reg) >> (n)) & 1u)

void collect_host_identify(const struct collect_cpuid *c, struct collect_host_cpu *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->vendor, c->vendor, 12);
	snprintf(h->brand, sizeof(h->brand), "%.48s", c->brand);
	/* the brand string is padded with blanks at its start */
	char *b = h->brand;
	while (*b == ' ')
		b++;
	memmove(h->brand, b, strlen(b) + 1);
	display_model(c, &h->family, &h->model, &h->stepping);
	/* leaf 7: EBX 16 AVX512F, 6 FDP, ECX 1 AVX512_VBMI, 6 AVX512_VBMI2,
	 * 8 GFNI, 11 AVX512_VNNI; EDX 23 AVX512_FP16, 24 AMX_TILE; leaf 7.1:
	 * EAX 21 AMX_FP16 */
	if (c->max_leaf >= 7) {
		h->avx512f = BIT(c->leaf7[1], 16);
		h->avx512_vbmi2 = BIT(c->leaf7[2], 6);
		h->gfni = BIT(c->leaf7[2], 8);
		h->avx512_vnni = BIT(c->leaf7[2], 11);
		h->avx512_fp16 = BIT(c->leaf7[3], 23);
		h->amx_tile = BIT(c->leaf7[3], 24);
		h->hybrid = BIT(c->leaf7[3], 15);
		h->amx_fp16 = BIT(c->leaf7_1[0], 21);
	}
	bool intel = !strcmp(h->vendor, "GenuineIntel");
	bool amd = !strcmp(h->vendor, "AuthenticAMD");
	const struct known_model *k = NULL;
	for (size_t i = 0; intel && h->family == 6 && i < sizeof intel_models / sizeof *intel_models; i++)
		if (intel_models[i].model == h->model)
			k = &intel_models[i];

	/* the features a hypervisor leaves, from the newest down */
	const char *fname = NULL, *ftma = "", *fcore = "";
	if (intel && h->amx_fp16) {
		fname = "Granite Rapids class";
		fcore = "gnr";
	} else if (intel && h->amx_tile && h->avx512_fp16) {
		fname = "Sapphire Rapids class";
		ftma = "spr";
		fcore = "spr";
	} else if (intel && h->avx512f && h->avx512_vbmi2 && h->gfni) {
		fname = "Ice Lake-SP class";
		ftma = "icx";
		fcore = "icx";
	} else if (intel && h->avx512f && h->avx512_vnni) {
		fname = "Cascade Lake class";
		ftma = "clx";
		fcore = "skx";
	} else if (intel && h->avx512f) {
		fname = "Skylake-SP class";
		ftma = "clx";
		fcore = "skx";
	}
	if (k && (!fname || !strcmp(fcore, k->core) || !h->avx512f)) {
		/* the model number stands, its features agree (or a client
		 * core without AVX-512) */
		snprintf(h->name, sizeof(h->name), "%s", k->name);
		snprintf(h->tma, sizeof(h->tma), "%s", k->tma);
		snprintf(h->core, sizeof(h->core), "%s", k->core);
		snprintf(h->why, sizeof(h->why), "CPUID family 6, model %u", h->model);
		if (k->model == 85 && h->avx512_vnni)
			snprintf(h->name, sizeof(h->name), "Cascade Lake");
		else if (k->model == 85)
			snprintf(h->name, sizeof(h->name), "Skylake-SP");
	} else if (fname) {
		snprintf(h->name, sizeof(h->name), "%s", fname);
		snprintf(h->tma, sizeof(h->tma), "%s", ftma);
		snprintf(h->core, sizeof(h->core), "%s", fcore);
		snprintf(h->why, sizeof(h->why),
			 "CPUID says family %u, model %u%s, but %s: the model number is masked (a virtual machine)",
			 h->family, h->model, k ? " (another core)" : "",
			 h->amx_fp16			  ? "AMX_FP16 came with Granite Rapids"
			 : h->amx_tile && h->avx512_fp16 ? "AMX and AVX512_FP16 came with Sapphire Rapids"
			 : h->gfni && h->avx512_vbmi2	  ? "AVX512_VBMI2 and GFNI came with Ice Lake"
			 : h->avx512_vnni		  ? "AVX512_VNNI came with Cascade Lake"
							  : "AVX-512 came with Skylake-SP");
	} else if (amd && (h->family == 0x19 || h->family == 0x1a)) {
		/* AMD's family and model numbers (the Processor Programming
		 * Reference of each family): family 19h models 10h-1Fh (Genoa,
		 * Bergamo), 60h-7Fh (Raphael, Phoenix) and A0h-AFh (Siena) are
		 * Zen 4, the rest of 19h Zen 3; family 1Ah is Zen 5 (Turin,
		 * Granite Ridge, Strix). Hypervisors pass them through */
		bool zen4 = h->family == 0x19 && ((h->model >= 0x10 && h->model <= 0x1f) ||
						  (h->model >= 0x60 && h->model <= 0x7f) ||
						  (h->model >= 0xa0 && h->model <= 0xaf));
		bool zen5 = h->family == 0x1a;
		snprintf(h->name, sizeof(h->name), "%s", zen5 ? "AMD Zen 5" : zen4 ? "AMD Zen 4" : "AMD Zen 3");
		snprintf(h->core, sizeof(h->core), "%s", zen5 ? "zen5" : "zen4");
		/* the TMA tables of AMD's pipeline-utilization Top-Down */
		snprintf(h->tma, sizeof(h->tma), "%s", zen5 ? "zen5" : zen4 ? "zen4" : "");
		snprintf(h->why, sizeof(h->why), "CPUID family %u (%xh), model %u (%02xh)%s", h->family, h->family,
			 h->model, h->model,
			 zen5 || zen4 ? "" : ": Zen 3, for which gus has no table; zen4 is the nearest core model");
	} else if (amd) {
		snprintf(h->name, sizeof(h->name), "AMD family %u%s", h->family,
			 h->family == 0x17 ? " (Zen 1/2)" : "");
		snprintf(h->why, sizeof(h->why), "an AMD core before Zen 3: no table, the nearest core model");
		snprintf(h->core, sizeof(h->core), "%s", h->family >= 0x17 ? "zen4" : "skx");
	} else {
		snprintf(h->name, sizeof(h->name), "%s family %u model %u", h->vendor[0] ? h->vendor : "unknown", h->family,
			 h->model);
		snprintf(h->why, sizeof(h->why), "a CPU gus has no table or core model for");
	}
}

/* the nearest of AVAILABLE (core model ids) to the core WANT: models of
 * one lineage, newer first where WANT is newer than all of them. Intel's
 * server cores and AMD's are two lineages, ranked apart: an AMD core
 * without its model takes the widest Intel core (spr), as gus did
 * before it had AMD models */
static const char *const core_order[] = { "skx", "icx", "spr", "gnr" };
static const char *const amd_core_order[] = { "zen4", "zen5" };

static int core_rank(const char *id)
{
	for (size_t i = 0; i < sizeof core_order / sizeof *core_order; i++)
		if (!strcmp(core_order[i], id))
			return (int)i;
	for (size_t i = 0; i < sizeof amd_core_order / sizeof *amd_core_order; i++)
		if (!strcmp(amd_core_order[i], id))
			return 1000 + (int)i;
	return -1;
}

const char *collect_nearest_core(const char *want, const char *const *available, size_t n)
{
	int w = core_rank(want);
	bool want_amd = w >= 1000;
	/* an AMD core among AMD models, or else as Sapphire Rapids */
	if (want_amd) {
		bool any_amd = false;
		for (size_t i = 0; i < n; i++)
			any_amd |= core_rank(available[i]) >= 1000;
		if (!any_amd)
			w = core_rank("spr");
	}
	const char *best = NULL;
	int bd = 1 << 20, br = -1;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(available[i], want))
			return available[i];
		int r = core_rank(available[i]);
		if (r < 0 || (w >= 1000) != (r >= 1000))
			continue;
		int d = w < 0 ? r == 0 ? 0 : 100 : abs(r - w);
		/* on a tie the newer: a core descends from the one before */
		if (d < bd || (d == bd && r > br)) {
			bd = d;
			br = r;
			best = available[i];
		}
	}
	return best;
}

void collect_host_cpu(struct collect_host_cpu *h)
{
	struct collect_cpuid c;
	collect_cpuid_read(&c);
	collect_host_identify(&c, h);
	/* GUS_CPU names the CPU instead (a table or core id): for machines
	 * gus takes for another, and for tests that must not depend on it */
	const char *force = getenv("GUS_CPU");
	if (force && *force) {
		static const struct {
			const char *id, *name, *tma, *core;
		} ids[] = {
			{ "skx", "Skylake-SP", "clx", "skx" }, { "clx", "Cascade Lake", "clx", "skx" },
			{ "icx", "Ice Lake-SP", "icx", "icx" }, { "spr", "Sapphire Rapids", "spr", "spr" },
			{ "emr", "Emerald Rapids", "spr", "spr" }, { "gnr", "Granite Rapids", "", "gnr" },
			{ "zen4", "AMD Zen 4", "zen4", "zen4" }, { "zen5", "AMD Zen 5", "zen5", "zen5" },
		};
		for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
			if (!strcmp(force, ids[i].id)) {
				snprintf(h->name, sizeof(h->name), "%s", ids[i].name);
				snprintf(h->tma, sizeof(h->tma), "%s", ids[i].tma);
				snprintf(h->core, sizeof(h->core), "%s", ids[i].core);
				snprintf(h->why, sizeof(h->why), "GUS_CPU=%s", force);
				return;
			}
		char seen[sizeof h->why];
		snprintf(seen, sizeof seen, "%s", h->why);
		snprintf(h->why, sizeof(h->why), "GUS_CPU=%s is none of skx, clx, icx, spr, emr, gnr, zen4, zen5: ignored; %.170s",
			 force, seen);
	}
}
