/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef GUS_WORKLOAD_LIBHOT_H
#define GUS_WORKLOAD_LIBHOT_H
long lib_collatz(long n);
double lib_dot(const double *a, const double *b, long n);
#endif
