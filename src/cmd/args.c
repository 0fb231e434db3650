/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The commands' arguments: options read with getopt_long and refused when
 * empty, numbers read whole and in range (a sign, a space, trailing text
 * or a value past 64 bits is an error, never a wrapped number), and the
 * input files that must be there. Each failure is a usage error naming
 * the option and the value (exit 2), a missing file exit 1 (gus(1)). */
#include "config.h"

#include "cmd.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ options --- */
static char optname[80];

int gus_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts, const char *command)
{
	int longindex = -1;
	int c = getopt_long(argc, argv, shortopts, longopts, &longindex);
	if (c == -1 || c == '?' || c == ':') {
		optname[0] = 0;
		return c;
	}
	if (longindex >= 0)
		snprintf(optname, sizeof optname, "--%s", longopts[longindex].name);
	else
		snprintf(optname, sizeof optname, "-%c", c);
	if (optarg && !*optarg) {
		gus_usage_error("%s: %s: the argument is empty", command, optname);
		return GUS_OPT_BAD;
	}
	return c;
}

const char *gus_optname(void)
{
	return optname;
}

/* ------------------------------------------------------------ numbers --- */
enum scan { SCAN_OK, SCAN_SYNTAX, SCAN_RANGE };

/* The digits of BASE (10 or 16, the latter after an optional 0x) at the
 * start of S into *V, *END after them; SCAN_RANGE when they do not fit in
 * 64 bits. No sign, no space. */
static enum scan scan_digits(const char *s, unsigned base, unsigned long long *v, const char **end)
{
	const char *p = s;
	if (base == 16 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2]))
		p += 2;
	const char *digits = p;
	unsigned long long x = 0;
	bool over = false;
	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a') + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A') + 10;
		else
			break;
		if (x > (ULLONG_MAX - d) / base)
			over = true;
		else
			x = x * base + d;
	}
	*end = p;
	if (p == digits)
		return SCAN_SYNTAX;
	*v = x;
	return over ? SCAN_RANGE : SCAN_OK;
}

/* the whole of S a number of BASE; a minus sign before one is a value
 * out of range (every option's numbers are unsigned), not a typo */
static enum scan scan_number(const char *s, unsigned base, unsigned long long *v)
{
	const char *end;
	unsigned long long ignored;
	if (s[0] == '-' && scan_digits(s + 1, base, &ignored, &end) != SCAN_SYNTAX && !*end)
		return SCAN_RANGE;
	enum scan r = scan_digits(s, base, v, &end);
	return *end ? SCAN_SYNTAX : r;
}

static int number_error(const char *opt, const char *arg, enum scan r, const char *want)
{
	if (r == SCAN_RANGE)
		return gus_usage_error("%s: '%s' is out of range: %s", opt, arg, want);
	return gus_usage_error("%s: '%s' is not %s", opt, arg, want);
}

int gus_parse_uint(const char *opt, const char *arg, unsigned long long lo, unsigned long long hi,
		   unsigned long long *v)
{
	char want[96];
	snprintf(want, sizeof want, "a number from %llu to %llu", lo, hi);
	unsigned long long x = 0;
	enum scan r = scan_number(arg, 10, &x);
	if (r == SCAN_OK && (x < lo || x > hi))
		r = SCAN_RANGE;
	if (r != SCAN_OK)
		return number_error(opt, arg, r, want);
	*v = x;
	return 0;
}

int gus_parse_unsigned(const char *opt, const char *arg, unsigned lo, unsigned hi, unsigned *v)
{
	unsigned long long x;
	int rc = gus_parse_uint(opt, arg, lo, hi, &x);
	if (!rc)
		*v = (unsigned)x;
	return rc;
}

/* [-]DIGITS[.DIGITS][e[+-]DIGITS], at least one digit before the exponent:
 * what strtod would also read as hex, infinity or NaN is refused */
static bool real_syntax(const char *s)
{
	const char *p = s + (*s == '-');
	size_t digits = 0;
	while (isdigit((unsigned char)*p))
		p++, digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return !*p;
}

int gus_parse_real(const char *opt, const char *arg, double lo, double hi, double *v)
{
	char want[96];
	snprintf(want, sizeof want, "a number from %g to %g", lo, hi);
	if (!real_syntax(arg))
		return number_error(opt, arg, SCAN_SYNTAX, want);
	errno = 0;
	double x = strtod(arg, NULL);
	/* 1e999 and 1e-999 alike: neither is the number given */
	if (errno == ERANGE || !(x >= lo && x <= hi))
		return number_error(opt, arg, SCAN_RANGE, want);
	*v = x;
	return 0;
}

/* BYTES in the largest unit that divides it, for messages */
static void size_text(unsigned long long bytes, char *buf, size_t len)
{
	static const char *const units[] = { "", "K", "M", "G" };
	size_t u = 0;
	while (u < 3 && bytes && !(bytes & 1023)) {
		bytes >>= 10;
		u++;
	}
	snprintf(buf, len, "%llu%s", bytes, units[u]);
}

int gus_parse_size(const char *opt, const char *arg, unsigned long long lo, unsigned long long hi,
		   unsigned long long *bytes)
{
	char want[128], los[32], his[32];
	size_text(lo, los, sizeof los);
	size_text(hi, his, sizeof his);
	snprintf(want, sizeof want, "a size from %s to %s (bytes, or with a K, M or G suffix)", los, his);
	const char *end;
	unsigned long long x = 0;
	enum scan r = scan_digits(arg, 10, &x, &end);
	unsigned shift = 0;
	if (r != SCAN_SYNTAX) {
		switch (*end) {
		case 'k': case 'K': shift = 10; end++; break;
		case 'm': case 'M': shift = 20; end++; break;
		case 'g': case 'G': shift = 30; end++; break;
		default: break;
		}
		if (shift && (*end == 'b' || *end == 'B'))
			end++;
		if (*end)
			r = SCAN_SYNTAX;
	} else if (arg[0] == '-' && scan_digits(arg + 1, 10, &x, &end) != SCAN_SYNTAX) {
		r = SCAN_RANGE;
	}
	if (r == SCAN_OK && x > (ULLONG_MAX >> shift))
		r = SCAN_RANGE;
	if (r == SCAN_OK) {
		x <<= shift;
		if (x < lo || x > hi)
			r = SCAN_RANGE;
	}
	if (r != SCAN_OK)
		return number_error(opt, arg, r, want);
	*bytes = x;
	return 0;
}

int gus_parse_address(const char *opt, const char *arg, unsigned long long *v)
{
	enum scan r = scan_number(arg, 16, v);
	if (r == SCAN_SYNTAX)
		return gus_usage_error("%s: '%s' is not an address in hex", opt, arg);
	if (r == SCAN_RANGE)
		return gus_usage_error("%s: '%s' is out of range: an address in hex, 0 to 0x%llx", opt, arg,
				       ULLONG_MAX);
	return 0;
}

int gus_parse_address_range(const char *opt, const char *arg, unsigned long long *start, unsigned long long *end)
{
	const char *p, *q;
	unsigned long long s = 0, e = 0;
	enum scan r = arg[0] == '-' ? SCAN_RANGE : scan_digits(arg, 16, &s, &p);
	if (r != SCAN_RANGE) {
		if (r == SCAN_SYNTAX || *p != '-')
			r = SCAN_SYNTAX;
		else if (p[1] == '-')
			r = SCAN_RANGE;
		else {
			enum scan r2 = scan_digits(p + 1, 16, &e, &q);
			r = r2 == SCAN_SYNTAX || *q ? SCAN_SYNTAX : r2;
		}
	}
	if (r == SCAN_SYNTAX)
		return gus_usage_error("%s: '%s' is not START-END in hex", opt, arg);
	if (r == SCAN_RANGE)
		return gus_usage_error("%s: '%s' is out of range: START-END, addresses in hex from 0 to 0x%llx", opt,
				       arg, ULLONG_MAX);
	if (e <= s)
		return gus_usage_error("%s: '%s': END must be above START", opt, arg);
	*start = s;
	*end = e;
	return 0;
}

int gus_check_readable(const char *opt, const char *path)
{
	/* a regular file is opened, not read; anything else (a FIFO of
	 * <(...), whose writer an open would wake, a directory) is left
	 * untouched to the module that reads it, which says what it takes */
	struct stat st;
	int e = 0;
	if (stat(path, &st))
		e = errno;
	else if (S_ISREG(st.st_mode)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			e = errno;
		else
			close(fd);
	}
	if (e) {
		gus_error("%s: cannot read %s: %s", opt, path, strerror(e));
		return -1;
	}
	return 0;
}
