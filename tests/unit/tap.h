/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal TAP producer for the unit tests (read by automake's tap-driver). */
#ifndef GUS_TAP_H
#define GUS_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3))) static int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

/* |got - want| <= tol, with both numbers in the message when it fails */
#define tap_near(got, want, tol, ...)                                            \
	do {                                                                     \
		double g_ = (got), w_ = (want);                                  \
		if (!tap_ok(fabs(g_ - w_) <= (tol), __VA_ARGS__))                \
			printf("#   got %.9g, want %.9g (tolerance %g)\n", g_, w_, (double)(tol)); \
	} while (0)

#define tap_streq(got, want, ...)                                                \
	do {                                                                     \
		const char *g_ = (got), *w_ = (want);                            \
		if (!tap_ok(g_ && w_ && !strcmp(g_, w_), __VA_ARGS__))           \
			printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
	} while (0)

static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
