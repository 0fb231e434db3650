/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A piece of Intel PT split into its packets with libipt's packet decoder
 * (ipt.h), counted by kind as perf script -D names them. */
#include <stdio.h>
#include <string.h>

#include <intel-pt.h>

#include "ipt.h"

static const char *const kind_names[IPT_PKT_KINDS] = {
	[IPT_PKT_PAD] = "PAD", [IPT_PKT_PSB] = "PSB", [IPT_PKT_PSBEND] = "PSBEND", [IPT_PKT_FUP] = "FUP",
	[IPT_PKT_TIP] = "TIP", [IPT_PKT_TIP_PGE] = "TIP.PGE", [IPT_PKT_TIP_PGD] = "TIP.PGD", [IPT_PKT_TNT] = "TNT",
	[IPT_PKT_MODE_EXEC] = "MODE.Exec", [IPT_PKT_MODE_TSX] = "MODE.TSX", [IPT_PKT_PIP] = "PIP",
	[IPT_PKT_VMCS] = "VMCS", [IPT_PKT_CBR] = "CBR", [IPT_PKT_TSC] = "TSC", [IPT_PKT_TMA] = "TMA",
	[IPT_PKT_MTC] = "MTC", [IPT_PKT_CYC] = "CYC", [IPT_PKT_STOP] = "TraceSTOP", [IPT_PKT_OVF] = "OVF",
	[IPT_PKT_MNT] = "MNT", [IPT_PKT_EXSTOP] = "EXSTOP", [IPT_PKT_MWAIT] = "MWAIT", [IPT_PKT_PWRE] = "PWRE",
	[IPT_PKT_PWRX] = "PWRX", [IPT_PKT_PTW] = "PTWRITE",
};

const char *ipt_packet_kind_name(enum ipt_packet_kind k)
{
	return (unsigned)k < IPT_PKT_KINDS ? kind_names[k] : "?";
}

static int kind_of(const struct pt_packet *p)
{
	switch (p->type) {
	case ppt_pad: return IPT_PKT_PAD;
	case ppt_psb: return IPT_PKT_PSB;
	case ppt_psbend: return IPT_PKT_PSBEND;
	case ppt_fup: return IPT_PKT_FUP;
	case ppt_tip: return IPT_PKT_TIP;
	case ppt_tip_pge: return IPT_PKT_TIP_PGE;
	case ppt_tip_pgd: return IPT_PKT_TIP_PGD;
	case ppt_tnt_8:
	case ppt_tnt_64: return IPT_PKT_TNT;
	case ppt_mode: return p->payload.mode.leaf == pt_mol_tsx ? IPT_PKT_MODE_TSX : IPT_PKT_MODE_EXEC;
	case ppt_pip: return IPT_PKT_PIP;
	case ppt_vmcs: return IPT_PKT_VMCS;
	case ppt_cbr: return IPT_PKT_CBR;
	case ppt_tsc: return IPT_PKT_TSC;
	case ppt_tma: return IPT_PKT_TMA;
	case ppt_mtc: return IPT_PKT_MTC;
	case ppt_cyc: return IPT_PKT_CYC;
	case ppt_stop: return IPT_PKT_STOP;
	case ppt_ovf: return IPT_PKT_OVF;
	case ppt_mnt: return IPT_PKT_MNT;
	case ppt_exstop: return IPT_PKT_EXSTOP;
	case ppt_mwait: return IPT_PKT_MWAIT;
	case ppt_pwre: return IPT_PKT_PWRE;
	case ppt_pwrx: return IPT_PKT_PWRX;
	case ppt_ptw: return IPT_PKT_PTW;
	default: return -1;
	}
}

int ipt_count_packets(const uint8_t *buf, size_t n, struct ipt_packet_counts *c, char *err, size_t errlen)
{
	if (!n)
		return 0;
	struct pt_config cfg;
	pt_config_init(&cfg);
	/* libipt reads the buffer in place, never writing it */
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + n;
	struct pt_packet_decoder *dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec) {
		snprintf(err, errlen, "libipt: cannot allocate a packet decoder");
		return -1;
	}
	uint64_t at = 0;
	c->bytes += n;
	/* from the first byte on, as perf's dump goes; a byte that starts no
	 * packet is skipped, and the split goes on after it */
	while (at < n) {
		if (pt_pkt_sync_set(dec, at) < 0)
			break;
		struct pt_packet p;
		int rc = pt_pkt_next(dec, &p, sizeof p);
		if (rc == -pte_eos) {
			c->cut += n - at;
			break;
		}
		int k = rc < 0 ? -1 : kind_of(&p);
		if (k < 0 || !p.size) {
			c->bad++;
			at++;
			continue;
		}
		c->by_kind[k]++;
		c->packets++;
		/* as perf splits them: the PAD bytes right after a packet, up
		 * to its eighth byte, are its padding (the alignment the
		 * hardware writes), not packets of their own */
		uint64_t len = p.size;
		while (len < 8 && at + len < n && !buf[at + len])
			len++;
		c->pad_folded += len - p.size;
		at += len;
	}
	pt_pkt_free_decoder(dec);
	return 0;
}
