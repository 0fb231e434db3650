# SPDX-License-Identifier: GPL-2.0-or-later
# The bundled workloads: small programs with a known dominant bottleneck in
# a named hot function, built with the project (included by Makefile.am).
# tests/workloads/README describes each: hot function, bottleneck, why, args.
# Their own CFLAGS replace AM_CFLAGS, so that the sanitizer build does not
# instrument them (they run under QEMU and are measured); baseline x86-64.
bundled_workloads = tests/workloads/fpchain tests/workloads/shuffle \
	tests/workloads/divide tests/workloads/ptrchase tests/workloads/branchmiss \
	tests/workloads/stream tests/workloads/jacobi1d
# the QEMU tracer's objects, children and exec'd programs: a library of
# the user's own (linked, dlopen'ed), forked workers, a wrapper script
follow_workloads = tests/workloads/uselib tests/workloads/dlopener tests/workloads/forker
# a hot function with two callers in known shares (gus record -g): frame
# pointers: the kernel unwinds user stacks by them
caller_workloads = tests/workloads/callers
# the second run's standard input (gus record without Intel PT)
io_workloads = tests/workloads/readsum
# one hot function in two phases (L1, then memory): the windows of the
# QEMU tracer over the whole run
phase_workloads = tests/workloads/phases tests/workloads/threads2
# two hot functions, one divider-bound and one memory-bound: the measured
# side per region
region_workloads = tests/workloads/tworegions
# loop nests of compiled kernels: the loop gus sim --function picks
nest_workloads = tests/workloads/loopnest
# an instruction across a page boundary: traced once per execution
nest_workloads += tests/workloads/pagecross
# AVX-512 code, which QEMU 7.2 cannot run: single-stepped natively
nest_workloads += tests/workloads/avx512
# gathers at known places (AVX-512, single-stepped): their data addresses
nest_workloads += tests/workloads/gather
# streams that once gave impossible numbers: a function run once whose
# warm-up ends behind a miss, a chain of jumps the BTB cannot hold
nest_workloads += tests/workloads/coldcall
noinst_PROGRAMS = $(bundled_workloads) $(follow_workloads) $(io_workloads) $(caller_workloads) $(phase_workloads) \
	$(region_workloads) $(nest_workloads)
noinst_DATA = tests/workloads/libhot.so tests/workloads/wrapper.sh
dist_noinst_DATA = tests/workloads/README tests/workloads/wrapper.sh.in tests/workloads/libhot.c
CLEANFILES_WORKLOADS = tests/workloads/libhot.so tests/workloads/wrapper.sh

workload_cflags = -std=c11 -O2 -g -Wall -Wextra $(GUS_WERROR)

tests_workloads_avx512_SOURCES = tests/workloads/avx512.c
tests_workloads_avx512_CFLAGS = $(workload_cflags)
tests_workloads_avx512_LDFLAGS =
tests_workloads_gather_SOURCES = tests/workloads/gather.c
tests_workloads_gather_CFLAGS = $(workload_cflags)
tests_workloads_gather_LDFLAGS =
tests_workloads_coldcall_SOURCES = tests/workloads/coldcall.c
tests_workloads_coldcall_CFLAGS = $(workload_cflags)
tests_workloads_coldcall_LDFLAGS =
tests_workloads_pagecross_SOURCES = tests/workloads/pagecross.c
tests_workloads_pagecross_CFLAGS = $(workload_cflags)
tests_workloads_pagecross_LDFLAGS =
tests_workloads_loopnest_SOURCES = tests/workloads/loopnest.c
tests_workloads_loopnest_CFLAGS = $(workload_cflags)
tests_workloads_loopnest_LDFLAGS =
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
tests_workloads_phases_SOURCES = tests/workloads/phases.c
tests_workloads_phases_CFLAGS = $(workload_cflags)
tests_workloads_phases_LDFLAGS =
tests_workloads_tworegions_SOURCES = tests/workloads/tworegions.c
tests_workloads_tworegions_CFLAGS = $(workload_cflags)
tests_workloads_tworegions_LDFLAGS =
tests_workloads_threads2_SOURCES = tests/workloads/threads2.c
tests_workloads_threads2_CFLAGS = $(workload_cflags) -pthread
tests_workloads_threads2_LDFLAGS = -pthread

# libhot.so: its own rule (a shared object, no libtool), soname libhot.so
# so that uselib finds it beside itself (rpath $ORIGIN)
tests/workloads/libhot.so: $(srcdir)/tests/workloads/libhot.c $(srcdir)/tests/workloads/libhot.h
	@$(MKDIR_P) tests/workloads
	$(AM_V_CC)$(CC) $(workload_cflags) -fPIC -shared -Wl,-soname,libhot.so -o $@ \
		$(srcdir)/tests/workloads/libhot.c
# the script, executable in the build tree
tests/workloads/wrapper.sh: $(srcdir)/tests/workloads/wrapper.sh.in
	@$(MKDIR_P) tests/workloads
	$(AM_V_GEN)cp $(srcdir)/tests/workloads/wrapper.sh.in $@ && chmod 755 $@
tests_workloads_uselib_SOURCES = tests/workloads/uselib.c tests/workloads/libhot.h
tests_workloads_uselib_CFLAGS = $(workload_cflags)
tests_workloads_uselib_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_workloads_uselib_LDADD = tests/workloads/libhot.so
tests_workloads_dlopener_SOURCES = tests/workloads/dlopener.c
tests_workloads_dlopener_CFLAGS = $(workload_cflags)
tests_workloads_dlopener_LDFLAGS =
tests_workloads_dlopener_LDADD = -ldl
tests_workloads_forker_SOURCES = tests/workloads/forker.c
tests_workloads_forker_CFLAGS = $(workload_cflags)
tests_workloads_forker_LDFLAGS =
tests_workloads_callers_SOURCES = tests/workloads/callers.c
tests_workloads_callers_CFLAGS = $(workload_cflags) -fno-omit-frame-pointer
tests_workloads_callers_LDFLAGS =
tests_workloads_readsum_SOURCES = tests/workloads/readsum.c
tests_workloads_readsum_CFLAGS = $(workload_cflags)
tests_workloads_readsum_LDFLAGS =
