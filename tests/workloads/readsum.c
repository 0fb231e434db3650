/* SPDX-License-Identifier: GPL-2.0-or-later */
/* readsum [--head N | --none | --stream] [WORK]: a program whose hot code
 * runs over its standard input, for gus record's second run (which must
 * read the same input to reach it).
 * Hot function mix_bytes: FNV-1a over the bytes read, a multiply chain.
 * Default: reads all of its standard input, prints "read N bytes" (stdout,
 * flushed: a traced run stopped in a loop has printed it) and "readsum:
 * input read" (stderr), then "sum S", then hashes the input over and over
 * until WORK bytes (default 150000000) are hashed (none when the input is
 * empty) and prints "hash H". --head N reads at most N bytes and stops
 * reading; --none reads nothing and hashes a buffer of its own; --stream
 * hashes each piece of 64 KiB as it comes, once, whatever the size of the
 * input, and prints "streamed N bytes, hash H" at the end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __has_attribute
#if __has_attribute(noipa)
#define HOT_FUNCTION __attribute__((noinline, noipa))
#endif
#endif
#ifndef HOT_FUNCTION
#define HOT_FUNCTION __attribute__((noinline))
#endif

HOT_FUNCTION uint64_t mix_bytes(const unsigned char *p, size_t n, uint64_t h);

HOT_FUNCTION uint64_t mix_bytes(const unsigned char *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static int usage(void)
{
	fprintf(stderr, "usage: readsum [--head N | --none | --stream] [WORK]\n");
	return 2;
}

int main(int argc, char **argv)
{
	size_t head = (size_t)-1;
	int none = 0, stream = 0, a = 1;
	unsigned long long work = 150000000ull;
	if (a < argc && !strcmp(argv[a], "--head") && a + 1 < argc) {
		head = strtoull(argv[a + 1], NULL, 10);
		a += 2;
	} else if (a < argc && !strcmp(argv[a], "--none")) {
		none = 1;
		a++;
	} else if (a < argc && !strcmp(argv[a], "--stream")) {
		stream = 1;
		a++;
	}
	if (a < argc) {
		char *end;
		work = strtoull(argv[a], &end, 10);
		if (*end || a + 1 < argc)
			return usage();
	}
	uint64_t h = 0xcbf29ce484222325ull;
	if (stream) {
		static unsigned char piece[65536];
		unsigned long long total = 0;
		ssize_t n;
		while ((n = read(0, piece, sizeof piece)) > 0) {
			h = mix_bytes(piece, (size_t)n, h);
			total += (unsigned long long)n;
		}
		printf("streamed %llu bytes, hash %016llx\n", total, (unsigned long long)h);
		return 0;
	}
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	if (none) {
		cap = len = 4096;
		buf = malloc(cap);
		for (size_t i = 0; buf && i < len; i++)
			buf[i] = (unsigned char)(i * 7 + 1);
	} else {
		while (len < head) {
			if (len == cap) {
				cap = cap ? 2 * cap : 65536;
				unsigned char *nb = realloc(buf, cap);
				if (!nb)
					return 1;
				buf = nb;
			}
			size_t want = cap - len < head - len ? cap - len : head - len;
			ssize_t n = read(0, buf + len, want);
			if (n <= 0)
				break;
			len += (size_t)n;
		}
	}
	if (len && !buf)
		return 1;
	/* said before any loop over the bytes: a traced run stopped in one
	 * has said it */
	printf("%s %zu bytes\n", none ? "made" : "read", len);
	fflush(stdout);
	fprintf(stderr, "readsum: input %s\n", none ? "not read" : "read");
	unsigned long long sum = 0;
	for (size_t i = 0; i < len; i++)
		sum += buf[i];
	printf("sum %llu\n", sum);
	fflush(stdout);
	for (unsigned long long done = 0; len && done < work; done += len)
		h = mix_bytes(buf, len, h);
	printf("hash %016llx\n", (unsigned long long)h);
	free(buf);
	return 0;
}
