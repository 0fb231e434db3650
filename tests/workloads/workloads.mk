# SPDX-License-Identifier: GPL-2.0-or-later
# The bundled workloads: small programs with a known dominant bottleneck in
# a named hot function, built with the project (included by Makefile.am).
# tests/workloads/README describes each: hot function, bottleneck, why, args.
# Their own CFLAGS replace AM_CFLAGS, so that the sanitizer build does not
# instrument them (they run under QEMU and are measured); baseline x86-64.
bundled_workloads = tests/workloads/fpchain tests/workloads/shuffle \
	tests/workloads/divide tests/workloads/ptrchase tests/workloads/branchmiss \
	tests/workloads/stream tests/workloads/jacobi1d
noinst_PROGRAMS = $(bundled_workloads)
dist_noinst_DATA = tests/workloads/README

workload_cflags = -std=c11 -O2 -g -Wall -Wextra $(GUS_WERROR)

tests_workloads_fpchain_SOURCES = tests/workloads/fpchain.c
tests_workloads_fpchain_CFLAGS = $(workload_cflags)
tests_workloads_fpchain_LDFLAGS =
tests_workloads_shuffle_SOURCES = tests/workloads/shuffle.c
tests_workloads_shuffle_CFLAGS = $(workload_cflags)
tests_workloads_shuffle_LDFLAGS =
tests_workloads_divide_SOURCES = tests/workloads/divide.c
tests_workloads_divide_CFLAGS = $(workload_cflags)
tests_workloads_divide_LDFLAGS =
tests_workloads_ptrchase_SOURCES = tests/workloads/ptrchase.c
tests_workloads_ptrchase_CFLAGS = $(workload_cflags)
tests_workloads_ptrchase_LDFLAGS =
tests_workloads_branchmiss_SOURCES = tests/workloads/branchmiss.c
tests_workloads_branchmiss_CFLAGS = $(workload_cflags)
tests_workloads_branchmiss_LDFLAGS =
tests_workloads_stream_SOURCES = tests/workloads/stream.c
tests_workloads_stream_CFLAGS = $(workload_cflags)
tests_workloads_stream_LDFLAGS =
tests_workloads_jacobi1d_SOURCES = tests/workloads/jacobi1d.c
tests_workloads_jacobi1d_CFLAGS = $(workload_cflags)
tests_workloads_jacobi1d_LDFLAGS =
