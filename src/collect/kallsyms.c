/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's functions, read from /proc/kallsyms, to name the kernel
 * frames of the samples (gus record keeps those its samples hit). The
 * text is the kernel's, but a file gus did not write: every line is
 * checked, a malformed one skipped, and nothing is trusted to be sorted
 * or unique. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collect.h"

struct collect_kallsyms {
	struct collect_ksym *v;
	size_t n;
	char *text;		/* the names and modules point into it */
};

/* /proc/kallsyms is read in pieces (its size is not known ahead); at most
 * this much (today's kernels: 5-15 MiB) */
#define KALLSYMS_MAX (256u << 20)

/* perf's choice among symbols at one address (kallsyms aliases such as
 * _text and _stext): a global one, then fewer leading underscores, then
 * the shorter name */
static int better(const struct collect_ksym *a, const struct collect_ksym *b)
{
	if (a->global != b->global)
		return a->global ? -1 : 1;
	size_t ua = strspn(a->name, "_"), ub = strspn(b->name, "_");
	if (ua != ub)
		return ua < ub ? -1 : 1;
	size_t la = strlen(a->name), lb = strlen(b->name);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int by_start(const void *pa, const void *pb)
{
	const struct collect_ksym *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return better(a, b);
}

/* the address at the start of a kallsyms line: 1 to 16 hex digits (the
 * kernel writes 16); END after them. strtoull's generality (signs,
 * spaces, 0x, locales) was most of the parse, which gus record now does
 * beside the samples' processing */
static bool hex_address(const char *p, unsigned long long *v, const char **end)
{
	unsigned long long x = 0;
	size_t n = 0;
	for (;; n++) {
		unsigned c = (unsigned char)p[n], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		if (n == 16)
			return false;
		x = x << 4 | d;
	}
	*v = x;
	*end = p + n;
	return n > 0;
}

int collect_kallsyms_parse(char *text, size_t len, struct collect_kallsyms **out, char *err, size_t errlen)
{
	*out = NULL;
	struct collect_kallsyms *k = calloc(1, sizeof *k);
	if (!k) {
		snprintf(err, errlen, "out of memory");
		free(text);
		return -1;
	}
	k->text = text;
	size_t cap = 0, zero = 0;
	for (size_t pos = 0; pos < len;) {
		char *line = text + pos;
		char *nl = memchr(line, '\n', len - pos);
		size_t linelen = nl ? (size_t)(nl - line) : len - pos;
		pos += linelen + 1;
		line[linelen] = '\0';	/* the last line's terminator is the byte
					 * collect_kallsyms_read leaves after the text */
		/* "ffffffff81000000 T _text" or "... t name\t[module]" */
		const char *end;
		unsigned long long addr;
		if (!hex_address(line, &addr, &end) || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		char type = end[1];
		/* functions only, as perf keeps them (text, weak): most lines
		 * are data, skipped before their names are looked at */
		if (toupper((unsigned char)type) != 'T' && toupper((unsigned char)type) != 'W')
			continue;
		char *name = line + (end - line) + 3;
		char *tab = strchr(name, '\t');
		char *module = (char *)"";
		if (tab) {
			*tab = '\0';
			module = tab + 1;
			size_t ml = strlen(module);
			if (ml >= 2 && module[0] == '[' && module[ml - 1] == ']') {
				module[ml - 1] = '\0';
				module++;
			} else {
				module = (char *)"";
			}
		}
		if (!*name || strlen(name) > 1024)
			continue;
		if (!addr) {
			zero++;
			continue;
		}
		if (k->n == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			struct collect_ksym *v = realloc(k->v, nc * sizeof *v);
			if (!v) {
				snprintf(err, errlen, "out of memory");
				collect_kallsyms_free(k);
				return -1;
			}
			k->v = v;
			cap = nc;
		}
		k->v[k->n++] = (struct collect_ksym){ .start = addr, .name = name, .module = module,
						      .global = isupper((unsigned char)type) != 0 };
	}
	if (!k->n) {
		if (zero)
			snprintf(err, errlen, "its %zu functions all show address 0: kernel.kptr_restrict hides them "
				 "(gus record as root, or sysctl kernel.kptr_restrict=0)", zero);
		else
			snprintf(err, errlen, "it lists no kernel function");
		collect_kallsyms_free(k);
		return -1;
	}
	/* the kernel lists them by address; sorted only where it does not
	 * (nothing here is trusted to be) */
	bool sorted = true;
	for (size_t i = 1; i < k->n && sorted; i++)
		sorted = k->v[i - 1].start <= k->v[i].start;
	if (!sorted)
		qsort(k->v, k->n, sizeof *k->v, by_start);
	/* one symbol per address, the best named; each ends where the next
	 * begins (the last: one page) */
	size_t w = 0;
	for (size_t i = 0; i < k->n; i++) {
		if (!w || k->v[i].start != k->v[w - 1].start)
			k->v[w++] = k->v[i];
		else if (better(&k->v[i], &k->v[w - 1]) < 0)
			k->v[w - 1] = k->v[i];
	}
	k->n = w;
	for (size_t i = 0; i < k->n; i++)
		k->v[i].end = i + 1 < k->n ? k->v[i + 1].start : k->v[i].start + 4096;
	*out = k;
	return 0;
}

/* collect_kallsyms_read, given up (-1, ERR saying so) once *CANCEL is set */
static int read_cancellable(const char *path, const volatile int *cancel, struct collect_kallsyms **out, char *err,
			    size_t errlen)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 20, len = 0;
	char *text = malloc(cap + 1);
	for (;;) {
		if (!text) {
			snprintf(err, errlen, "%s: out of memory", path);
			close(fd);
			return -1;
		}
		if (len == cap) {
			if (cap >= KALLSYMS_MAX) {
				snprintf(err, errlen, "%s: larger than %u MiB", path, KALLSYMS_MAX >> 20);
				free(text);
				close(fd);
				return -1;
			}
			char *t = realloc(text, cap * 2 + 1);
			if (!t)
				free(text);
			text = t;
			cap *= 2;
			continue;
		}
		if (cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED)) {
			snprintf(err, errlen, "%s: not read (not needed)", path);
			free(text);
			close(fd);
			return -1;
		}
		ssize_t r = read(fd, text + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			free(text);
			close(fd);
			return -1;
		}
		if (!r)
			break;
		len += (size_t)r;
	}
	close(fd);
	text[len] = '\0';
	char why[COLLECT_ERRLEN];
	if (collect_kallsyms_parse(text, len, out, why, sizeof why)) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}

int collect_kallsyms_read(const char *path, struct collect_kallsyms **out, char *err, size_t errlen)
{
	return read_cancellable(path, NULL, out, err, errlen);
}

const struct collect_ksym *collect_kallsyms_find(const struct collect_kallsyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k ? k->n : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= k->v[lo - 1].end)
		return NULL;
	return &k->v[lo - 1];
}

size_t collect_kallsyms_count(const struct collect_kallsyms *k)
{
	return k ? k->n : 0;
}

void collect_kallsyms_free(struct collect_kallsyms *k)
{
	if (!k)
		return;
	free(k->v);
	free(k->text);
	free(k);
}

/* ------------------------------------------------ read on a thread --- */
struct collect_kallsyms_async {
	pthread_t thread;
	bool joined;
	char path[4096];
	struct collect_kallsyms *k;	/* the result, until taken */
	int rc;
	volatile int cancel;	/* collect_kallsyms_async_free: no longer wanted */
	char err[COLLECT_ERRLEN];
};

static void *read_thread(void *arg)
{
	struct collect_kallsyms_async *a = arg;
	/* gus record starts it beside the program it samples: it takes
	 * what CPU time the program leaves (Linux: the nice value of this
	 * thread alone; a failure leaves it as it was) */
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	a->rc = read_cancellable(a->path, &a->cancel, &a->k, a->err, sizeof a->err);
	return NULL;
}

struct collect_kallsyms_async *collect_kallsyms_read_async(const char *path)
{
	struct collect_kallsyms_async *a = calloc(1, sizeof *a);
	if (!a || strlen(path) >= sizeof a->path) {
		free(a);
		return NULL;
	}
	memcpy(a->path, path, strlen(path) + 1);
	if (pthread_create(&a->thread, NULL, read_thread, a)) {
		free(a);
		return NULL;
	}
	return a;
}

static void join(struct collect_kallsyms_async *a)
{
	if (!a->joined) {
		pthread_join(a->thread, NULL);
		a->joined = true;
	}
}

int collect_kallsyms_wait(struct collect_kallsyms_async *a, struct collect_kallsyms **out, char *err,
			  size_t errlen)
{
	join(a);
	*out = a->k;
	a->k = NULL;
	if (a->rc)
		snprintf(err, errlen, "%s", a->err);
	return a->rc;
}

void collect_kallsyms_async_free(struct collect_kallsyms_async *a)
{
	if (!a)
		return;
	/* a read still going stops at its next piece */
	__atomic_store_n(&a->cancel, 1, __ATOMIC_RELAXED);
	join(a);
	collect_kallsyms_free(a->k);
	free(a);
}
