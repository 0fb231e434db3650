/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What QEMU 7.2's CPU runs (collect.h): the ISA extensions of the CPU
 * qemu-x86_64 gives a program by default ("max" under TCG), as its CPUID
 * says (leaves 1, 7 and 0x80000001 as glibc's ld.so --list-diagnostics
 * prints them under qemu-x86_64 7.2: SSE up to 4.2 and SSE4a, AVX, AVX2,
 * FMA, F16C, AES, PCLMULQDQ, VAES, BMI1/2, ADX, MOVBE, POPCNT, LZCNT,
 * RDRAND, RDPID, FSGSBASE, the cache-line flushes, XSAVE; no AVX-512, AMX,
 * AVX-VNNI, SHA, GFNI, VPCLMULQDQ, RDSEED, TSX, XOP/FMA4/TBM). A region
 * with an instruction of any other extension cannot be traced by QEMU:
 * the program either dies of SIGILL there or, dispatching on CPUID as
 * glibc's ifuncs do, runs another variant. */
#include "collect.h"

#include <stdio.h>
#include <string.h>

#include <Zydis/Zydis.h>

static bool qemu_runs(const ZydisDecodedInstruction *in)
{
	switch (in->meta.isa_ext) {
	case ZYDIS_ISA_EXT_BASE: case ZYDIS_ISA_EXT_X87: case ZYDIS_ISA_EXT_MMX: case ZYDIS_ISA_EXT_SSE:
	case ZYDIS_ISA_EXT_SSE2: case ZYDIS_ISA_EXT_SSE3: case ZYDIS_ISA_EXT_SSSE3: case ZYDIS_ISA_EXT_SSE4:
	case ZYDIS_ISA_EXT_SSE4A: case ZYDIS_ISA_EXT_AES: case ZYDIS_ISA_EXT_PCLMULQDQ: case ZYDIS_ISA_EXT_AVX:
	case ZYDIS_ISA_EXT_AVX2: case ZYDIS_ISA_EXT_AVX2GATHER: case ZYDIS_ISA_EXT_AVXAES: case ZYDIS_ISA_EXT_F16C:
	case ZYDIS_ISA_EXT_FMA: case ZYDIS_ISA_EXT_VAES: case ZYDIS_ISA_EXT_BMI1: case ZYDIS_ISA_EXT_BMI2:
	case ZYDIS_ISA_EXT_ADOX_ADCX: case ZYDIS_ISA_EXT_LZCNT: case ZYDIS_ISA_EXT_MOVBE: case ZYDIS_ISA_EXT_RDRAND:
	case ZYDIS_ISA_EXT_RDPID: case ZYDIS_ISA_EXT_RDTSCP: case ZYDIS_ISA_EXT_RDWRFSGS: case ZYDIS_ISA_EXT_CLFSH:
	case ZYDIS_ISA_EXT_CLFLUSHOPT: case ZYDIS_ISA_EXT_CLWB: case ZYDIS_ISA_EXT_XSAVE: case ZYDIS_ISA_EXT_XSAVEOPT:
	case ZYDIS_ISA_EXT_XSAVEC: case ZYDIS_ISA_EXT_LONGMODE: case ZYDIS_ISA_EXT_PAUSE: case ZYDIS_ISA_EXT_MONITOR:
	case ZYDIS_ISA_EXT_SMAP: case ZYDIS_ISA_EXT_PKU: case ZYDIS_ISA_EXT_AMD3DNOW:
	case ZYDIS_ISA_EXT_AMD3DNOW_PREFETCH:
	/* in the hint space, which runs as a NOP where the extension is
	 * absent: MPX's bnd prefixes and bounds, cldemote, prefetchwt1 */
	case ZYDIS_ISA_EXT_MPX: case ZYDIS_ISA_EXT_CLDEMOTE: case ZYDIS_ISA_EXT_PREFETCHWT1:
		return true;
	case ZYDIS_ISA_EXT_CET:
		/* endbr64 and rdssp are hints too (every glibc function
		 * starts with endbr64); the rest needs CET */
		return in->mnemonic == ZYDIS_MNEMONIC_ENDBR32 || in->mnemonic == ZYDIS_MNEMONIC_ENDBR64 ||
		       in->mnemonic == ZYDIS_MNEMONIC_RDSSPD || in->mnemonic == ZYDIS_MNEMONIC_RDSSPQ;
	default:
		return false;
	}
}

bool collect_qemu_lacks(const uint8_t *code, size_t len, uint64_t addr, char *why, size_t whylen)
{
	ZydisDecoder dec;
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	size_t at = 0;
	while (at < len) {
		ZydisDecodedInstruction in;
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, code + at, len - at, &in))) {
			at++;	/* data or padding between the code */
			continue;
		}
		if (!qemu_runs(&in)) {
			snprintf(why, whylen, "its code needs %s, which QEMU 7.2's CPU lacks (first: %s at 0x%llx)",
				 ZydisISAExtGetString(in.meta.isa_ext), ZydisMnemonicGetString(in.mnemonic),
				 (unsigned long long)(addr + at));
			return true;
		}
		at += in.length;
	}
	return false;
}
