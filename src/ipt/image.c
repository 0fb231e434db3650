/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The traced process's memory image: file-backed executable mappings and
 * saved buffers (the vDSO), as sorted non-overlapping ranges. decode.c
 * reads it through a libipt memory callback (a sorted array with a
 * last-hit cache), only when it meets a block start for the first time:
 * its per-block cache keeps the hot path off memory reads altogether.
 * Files also go to a libipt section cache, for libipt's own block and
 * instruction decoders, which decode.c keeps to compare with. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipt.h"
#include "ipt_internal.h"
#include "outpath.h"

/* Bytes shared by the ranges split out of one mapping. */
struct backing {
	void *addr;
	size_t len;
	int refs;
	bool mapped;		/* munmap, else free */
};

struct range {
	uint64_t start, end;
	const uint8_t *data;	/* the bytes at start */
	struct backing *b;
};

static void backing_put(struct backing *b)
{
	if (!b || --b->refs > 0)
		return;
	if (b->mapped)
		munmap(b->addr, b->len);
	else
		free(b->addr);
	free(b);
}

struct ipt_image *ipt_image_new(void)
{
	struct ipt_image *img = calloc(1, sizeof(*img));
	if (!img)
		return NULL;
	img->iscache = pt_iscache_alloc("gus");
	if (!img->iscache) {
		free(img);
		return NULL;
	}
	/* keep every section mapped: sections are unmapped beyond the limit,
	 * and their block caches with them */
	pt_iscache_set_limit(img->iscache, UINT64_MAX);
	return img;
}

void ipt_image_free(struct ipt_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->n; i++)
		backing_put(img->r[i].b);
	free(img->r);
	ipt_cache_free(img->cache);
	pt_iscache_free(img->iscache);
	free(img->isid);
	free(img);
}

static int reserve(struct ipt_image *img, size_t more)
{
	if (img->n + more <= img->cap)
		return 0;
	size_t cap = img->cap ? img->cap * 2 : 16;
	while (cap < img->n + more)
		cap *= 2;
	struct range *r = realloc(img->r, cap * sizeof(*r));
	if (!r)
		return -1;
	img->r = r;
	img->cap = cap;
	return 0;
}

/* A later mapping replaces what it covers of earlier ones, as mmap does:
 * ranges are cut, split or dropped, then the new one is inserted in
 * order. */
static int insert(struct ipt_image *img, uint64_t start, uint64_t end, const uint8_t *data,
		  struct backing *b)
{
	if (reserve(img, 2) < 0)
		return -1;
	size_t i = 0;
	while (i < img->n) {
		struct range *r = &img->r[i];
		if (r->end <= start || r->start >= end) {
			i++;
			continue;
		}
		if (r->start < start && r->end > end) {
			/* split: the tail becomes a range of its own */
			struct range tail = *r;
			tail.data += end - r->start;
			tail.start = end;
			tail.b->refs++;
			r->end = start;
			memmove(&img->r[i + 2], &img->r[i + 1], (img->n - i - 1) * sizeof(*r));
			img->r[i + 1] = tail;
			img->n++;
			i += 2;
		} else if (r->start < start) {
			r->end = start;
			i++;
		} else if (r->end > end) {
			r->data += end - r->start;
			r->start = end;
			i++;
		} else {
			backing_put(r->b);
			memmove(r, r + 1, (img->n - i - 1) * sizeof(*r));
			img->n--;
		}
	}
	size_t at = 0;
	while (at < img->n && img->r[at].start < start)
		at++;
	memmove(&img->r[at + 1], &img->r[at], (img->n - at) * sizeof(struct range));
	img->r[at] = (struct range){ .start = start, .end = end, .data = data, .b = b };
	img->n++;
	img->gen++;
	return 0;
}

int ipt_image_add_file(struct ipt_image *img, const char *path, uint64_t pgoff, uint64_t len,
		       uint64_t start, char *err, size_t errlen)
{
	/* the recording names the file: a FIFO must not block the open */
	int fd = outpath_open_regular(path, err, errlen);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	uint64_t fsize = (uint64_t)st.st_size;
	if (len == 0 || pgoff >= fsize || start + len < start) {
		snprintf(err, errlen, "%s: offset %#llx is beyond the file's %llu bytes", path,
			 (unsigned long long)pgoff, (unsigned long long)fsize);
		close(fd);
		return -1;
	}
	/* what lies past the end of the file is not code we could read */
	if (len > fsize - pgoff)
		len = fsize - pgoff;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t moff = pgoff & ~(page - 1);
	size_t mlen = (size_t)(len + (pgoff - moff));
	void *p = mmap(NULL, mlen, PROT_READ, MAP_PRIVATE, fd, (off_t)moff);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
		return -1;
	}
	struct backing *b = malloc(sizeof(*b));
	if (!b || insert(img, start, start + len, (uint8_t *)p + (pgoff - moff), b) < 0) {
		free(b);
		munmap(p, mlen);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*b = (struct backing){ .addr = p, .len = mlen, .refs = 1, .mapped = true };
	/* without a section the callback still serves the file, slower */
	int *ids = realloc(img->isid, (img->nisid + 1) * sizeof(*ids));
	if (!ids)
		return 0;
	img->isid = ids;
	int isid = pt_iscache_add_file(img->iscache, path, pgoff, len, start);
	if (isid >= 0)
		img->isid[img->nisid++] = isid;
	return 0;
}

int ipt_image_add_buffer(struct ipt_image *img, const void *buf, size_t len, uint64_t start,
			 char *err, size_t errlen)
{
	if (len == 0 || start + len < start) {
		snprintf(err, errlen, "empty or wrapping buffer at %#llx", (unsigned long long)start);
		return -1;
	}
	void *copy = malloc(len);
	struct backing *b = malloc(sizeof(*b));
	if (!copy || !b || insert(img, start, start + len, copy, b) < 0) {
		free(copy);
		free(b);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(copy, buf, len);
	*b = (struct backing){ .addr = copy, .len = len, .refs = 1, .mapped = false };
	return 0;
}

/* index of the range holding ADDR, or -1 */
static long find(const struct ipt_image *img, uint64_t addr)
{
	size_t lo = 0, hi = img->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (img->r[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < img->n && img->r[lo].start <= addr)
		return (long)lo;
	return -1;
}

size_t ipt_image_read(const struct ipt_image *img, uint64_t addr, void *out, size_t n)
{
	size_t done = 0;
	while (done < n) {
		long i = find(img, addr + done);
		if (i < 0)
			break;
		const struct range *r = &img->r[i];
		uint64_t a = addr + done;
		size_t k = (size_t)(r->end - a);
		if (k > n - done)
			k = n - done;
		memcpy((uint8_t *)out + done, r->data + (a - r->start), k);
		done += k;
	}
	return done;
}

/* libipt's read_memory_callback_t: one instruction's bytes at a time, so
 * the last range hit almost always holds the next request too. */
int ipt_image_read_cb(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip,
		      void *context)
{
	struct ipt_reader *rd = context;
	const struct ipt_image *img = rd->img;
	(void)asid;
	size_t i = rd->last;
	if (i >= img->n || ip < img->r[i].start || ip >= img->r[i].end) {
		long f = find(img, ip);
		if (f < 0)
			return -pte_nomap;
		rd->last = i = (size_t)f;
	}
	const struct range *r = &img->r[i];
	size_t k = (size_t)(r->end - ip);
	if (k < size) {
		/* an instruction across two adjacent mappings */
		return (int)ipt_image_read(img, ip, buffer, size);
	}
	memcpy(buffer, r->data + (ip - r->start), size);
	return (int)size;
}
