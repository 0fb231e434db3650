#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# From a fresh clone: install what is missing, build gus and the bundled
# workloads, and run gus's main job on one of them: gus record, then gus
# report. Without a hardware PMU or Intel PT (most virtual machines) the
# recording samples cpu-clock, traces the hot regions under QEMU and the
# report says what it could not measure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh || exit 1
scripts/build-libperf.sh || exit 1
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
	autoreconf -fi >/dev/null || exit 1
fi
mkdir -p build/quickstart
( cd build/quickstart && { [ -f Makefile ] || "$top/configure" -q; } && make -j"$(nproc)" -s gus gus-qemu-plugin.so gus-qemu-exec.so tests/workloads/divide &&
	{ ! grep -q '^tma-gen.stamp:' Makefile || make -s tma-gen.stamp >/dev/null; } ) || exit 1
gus=$top/build/quickstart/gus
workload=$top/build/quickstart/tests/workloads/divide
out=$top/build/quickstart/run
mkdir -p "$out"
cd "$out" || exit 1

echo "\$ gus record -- divide"
$gus record -- "$workload" || exit 1
echo
echo "\$ gus report"
$gus report || exit 1
