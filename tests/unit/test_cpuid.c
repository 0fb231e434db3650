/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which CPU gus takes a machine for (collect/cpuid.c), from CPUID leaves
 * as bare-metal Intel servers, virtual machines that mask the model
 * number, and other vendors give them; the nearest core model; GUS_CPU. */
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "tap.h"

/* EBX, ECX, EDX bits of leaf 7 */
#define AVX512F (1u << 16)
#define VBMI2 (1u << 6)
#define GFNI (1u << 8)
#define VNNI (1u << 11)
#define FP16 (1u << 23)
#define AMX (1u << 24)
#define HYBRID (1u << 15)
#define AMX_FP16 (1u << 21)	/* leaf 7.1 EAX */

static struct collect_cpuid intel(unsigned family, unsigned model, unsigned stepping, unsigned ebx, unsigned ecx,
				  unsigned edx, unsigned l71eax)
{
	struct collect_cpuid c;
	memset(&c, 0, sizeof c);
	c.max_leaf = 0x20;
	memcpy(c.vendor, "GenuineIntel", 13);
	snprintf(c.brand, sizeof c.brand, "   Intel(R) Xeon(R) test CPU");
	c.leaf1[0] = stepping | (model & 0xf) << 4 | (family & 0xf) << 8 | ((model >> 4) & 0xf) << 16;
	c.leaf7[1] = ebx;
	c.leaf7[2] = ecx;
	c.leaf7[3] = edx;
	c.leaf7[0] = 1;
	c.leaf7_1[0] = l71eax;
	return c;
}

static struct collect_cpuid amd(unsigned family, unsigned model)
{
	struct collect_cpuid c;
	memset(&c, 0, sizeof c);
	c.max_leaf = 0x10;
	memcpy(c.vendor, "AuthenticAMD", 13);
	c.leaf1[0] = 0xf << 8 | (family - 0xf) << 20 | (model & 0xf) << 4 | (model >> 4) << 16;
	c.leaf7[0] = 1;
	c.leaf7[1] = AVX512F;
	c.leaf7[2] = VBMI2 | GFNI | VNNI;
	return c;
}

static void expect(const char *what, const struct collect_cpuid *c, const char *name, const char *tma, const char *core,
		   const char *why)
{
	struct collect_host_cpu h;
	collect_host_identify(c, &h);
	tap_ok(!strcmp(h.name, name) && !strcmp(h.tma, tma) && !strcmp(h.core, core) && strstr(h.why, why),
	       "%s: '%s' (table '%s', core '%s'; %s)", what, h.name, h.tma, h.core, h.why);
}

int main(void)
{
	const unsigned spr_ecx = VBMI2 | GFNI | VNNI, spr_edx = FP16 | AMX;
	struct collect_cpuid c = intel(6, 143, 8, AVX512F, spr_ecx, spr_edx, 0);
	expect("Sapphire Rapids, bare metal", &c, "Sapphire Rapids", "spr", "spr", "CPUID family 6, model 143");
	struct collect_host_cpu h;
	collect_host_identify(&c, &h);
	tap_ok(h.family == 6 && h.model == 143 && h.stepping == 8 && h.amx_tile && h.avx512_fp16 && !h.amx_fp16 &&
		       !strcmp(h.vendor, "GenuineIntel") && !strcmp(h.brand, "Intel(R) Xeon(R) test CPU"),
	       "the display family, model and stepping, the features, the brand without its padding");
	c = intel(6, 167, 1, AVX512F, spr_ecx, spr_edx, 0);
	expect("a Sapphire Rapids guest whose hypervisor says model 167", &c, "Sapphire Rapids class", "spr", "spr",
	       "AMX and AVX512_FP16 came with Sapphire Rapids");
	expect("... and the reason says the model is masked", &c, "Sapphire Rapids class", "spr", "spr", "masked");
	c = intel(6, 207, 2, AVX512F, spr_ecx, spr_edx, 0);
	expect("Emerald Rapids", &c, "Emerald Rapids", "emr", "spr", "model 207");
	c = intel(6, 167, 1, AVX512F, spr_ecx, spr_edx, AMX_FP16);
	expect("a Granite Rapids guest (AMX_FP16)", &c, "Granite Rapids class", "", "gnr", "AMX_FP16");
	c = intel(6, 173, 1, AVX512F, spr_ecx, spr_edx, AMX_FP16);
	expect("Granite Rapids, bare metal", &c, "Granite Rapids", "", "gnr", "model 173");
	c = intel(6, 106, 6, AVX512F, VBMI2 | GFNI | VNNI, 0, 0);
	expect("Ice Lake-SP", &c, "Ice Lake-SP", "icx", "icx", "model 106");
	c = intel(6, 0, 0, AVX512F, VBMI2 | GFNI | VNNI, 0, 0);
	expect("an Ice Lake-SP guest (model 0)", &c, "Ice Lake-SP class", "icx", "icx", "GFNI came with Ice Lake");
	c = intel(6, 85, 7, AVX512F, VNNI, 0, 0);
	expect("Cascade Lake", &c, "Cascade Lake", "clx", "skx", "model 85");
	c = intel(6, 85, 4, AVX512F, 0, 0, 0);
	expect("Skylake-SP", &c, "Skylake-SP", "clx", "skx", "model 85");
	c = intel(6, 13, 0, AVX512F, VNNI, 0, 0);
	expect("a Cascade Lake guest", &c, "Cascade Lake class", "clx", "skx", "AVX512_VNNI came with Cascade Lake");
	c = intel(6, 151, 2, 0, 0, HYBRID, 0);
	expect("Alder Lake (no AVX-512)", &c, "Alder Lake (client, hybrid)", "adl-core", "spr", "model 151");
	collect_host_identify(&c, &h);
	tap_ok(h.hybrid, "Alder Lake: hybrid");

	/* AMD Zen 5: family 0xf + extended family 0xb */
	c = amd(0x1a, 0x02);
	expect("AMD Zen 5, Turin (AVX-512 too: never taken for an Intel class)", &c, "AMD Zen 5", "zen5", "zen5",
	       "CPUID family 26 (1ah), model 2 (02h)");
	c = amd(0x19, 0x11);
	expect("AMD Zen 4, Genoa (family 19h model 11h)", &c, "AMD Zen 4", "zen4", "zen4", "family 25 (19h), model 17 (11h)");
	c = amd(0x19, 0x61);
	expect("AMD Zen 4, Raphael (model 61h)", &c, "AMD Zen 4", "zen4", "zen4", "model 97 (61h)");
	c = amd(0x19, 0xa0);
	expect("AMD Zen 4, Siena (model A0h)", &c, "AMD Zen 4", "zen4", "zen4", "model 160 (a0h)");
	c = amd(0x19, 0x01);
	expect("AMD Zen 3, Milan (model 01h): zen4 as the nearest, said", &c, "AMD Zen 3", "", "zen4",
	       "Zen 3, for which gus has no table; zen4 is the nearest core model");
	c = amd(0x17, 0x31);
	expect("AMD Zen 2, Rome (family 17h)", &c, "AMD family 23 (Zen 1/2)", "", "zen4", "before Zen 3");
	memset(&c, 0, sizeof c);
	expect("no CPUID", &c, "unknown family 0 model 0", "", "", "no table or core model");

	static const char *const avail[] = { "skx", "spr" };
	tap_streq(collect_nearest_core("spr", avail, 2), "spr", "nearest core: spr is there");
	tap_streq(collect_nearest_core("icx", avail, 2), "spr", "nearest core of icx: spr (a tie, the newer)");
	tap_streq(collect_nearest_core("gnr", avail, 2), "spr", "nearest core of gnr, without gnr.mm: spr");
	tap_streq(collect_nearest_core("skx", avail, 2), "skx", "nearest core of skx: itself");
	tap_streq(collect_nearest_core("", avail, 2), "skx", "no core: the oldest, skx");
	tap_ok(collect_nearest_core("spr", NULL, 0) == NULL, "nothing available: NULL");
	/* the models data/machines ships: Granite Rapids has its own */
	static const char *const shipped[] = { "gnr", "icx", "skx", "spr" };
	tap_streq(collect_nearest_core("gnr", shipped, 4), "gnr", "nearest core of gnr, with gnr.mm: gnr itself");
	tap_streq(collect_nearest_core("spr", shipped, 4), "spr", "... and spr stays spr beside it");
	/* AMD's lineage apart from Intel's */
	static const char *const with_zen[] = { "gnr", "icx", "skx", "spr", "zen4", "zen5" };
	tap_streq(collect_nearest_core("zen5", with_zen, 6), "zen5", "zen5 with zen5.mm: itself");
	tap_streq(collect_nearest_core("zen4", with_zen, 6), "zen4", "zen4 with zen4.mm: itself");
	static const char *const only_zen4[] = { "skx", "spr", "zen4" };
	tap_streq(collect_nearest_core("zen5", only_zen4, 3), "zen4", "zen5 without zen5.mm: zen4, not an Intel model");
	tap_streq(collect_nearest_core("zen5", shipped, 4), "spr", "an AMD core without AMD models: spr, as before");
	tap_streq(collect_nearest_core("gnr", only_zen4, 3), "spr", "an Intel core never takes an AMD model");

	setenv("GUS_CPU", "icx", 1);
	collect_host_cpu(&h);
	tap_ok(!strcmp(h.name, "Ice Lake-SP") && !strcmp(h.tma, "icx") && !strcmp(h.core, "icx") &&
		       !strcmp(h.why, "GUS_CPU=icx"),
	       "GUS_CPU=icx names the CPU (%s, %s)", h.name, h.why);
	setenv("GUS_CPU", "zen4", 1);
	collect_host_cpu(&h);
	tap_ok(!strcmp(h.name, "AMD Zen 4") && !strcmp(h.core, "zen4") && !strcmp(h.tma, "zen4"),
	       "GUS_CPU=zen4 (%s, table %s, core %s)", h.name, h.tma, h.core);
	setenv("GUS_CPU", "zen5", 1);
	collect_host_cpu(&h);
	tap_ok(!strcmp(h.name, "AMD Zen 5") && !strcmp(h.core, "zen5") && !strcmp(h.tma, "zen5"),
	       "GUS_CPU=zen5 (%s, table %s, core %s)", h.name, h.tma, h.core);
	setenv("GUS_CPU", "z80", 1);
	collect_host_cpu(&h);
	tap_ok(strstr(h.why, "GUS_CPU=z80 is none of") != NULL, "an unknown GUS_CPU is ignored, said (%s)", h.why);
	unsetenv("GUS_CPU");
	collect_host_cpu(&h);
	tap_ok(h.name[0] && h.why[0], "this machine: %s (%s)", h.name, h.why);
	return tap_done();
}
