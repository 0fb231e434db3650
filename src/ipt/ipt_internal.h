/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared between image.c and decode.c; not part of ipt.h's API. */
#ifndef GUS_IPT_INTERNAL_H
#define GUS_IPT_INTERNAL_H

#include <intel-pt.h>

#include "ipt.h"

struct range;
struct ipt_cache;

struct ipt_image {
	struct range *r;	/* sorted, non-overlapping */
	size_t n, cap;
	unsigned gen;		/* bumped on every change: caches built on it are stale */
	/* files also go to libipt's section cache, whose per-section block
	 * cache makes its block decoder several times faster than reading
	 * through a callback; buffers are read through the callback */
	struct pt_image_section_cache *iscache;
	int *isid;		/* in the order added */
	size_t nisid;
	/* decode.c's state built on this image (libipt image, per-block
	 * instruction cache); mutable behind a const image, so one image
	 * must not be decoded by two threads at once */
	struct ipt_cache *cache;
};

/* the read callback's context: the image and the range last hit */
struct ipt_reader {
	const struct ipt_image *img;
	size_t last;
};

int ipt_image_read_cb(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip,
		      void *context);
void ipt_cache_free(struct ipt_cache *c);

#endif
