#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# From a fresh clone: install what is missing, build gus, and run its main
# job on the bundled workload. Without a hardware PMU (most virtual
# machines) it says so, counts software events instead, and shows the TMA
# tree from a bundled perf stat capture. Then gus sim on the hot loop.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh || exit 1
scripts/build-libperf.sh || exit 1
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	autoreconf -fi >/dev/null || exit 1
fi
mkdir -p build/quickstart
( cd build/quickstart && { [ -f Makefile ] || "$top/configure" -q; } && make -j"$(nproc)" -s gus gus-qemu-plugin.so tests/workloads/workload ) || exit 1
gus=build/quickstart/gus
workload=build/quickstart/tests/workloads/workload

echo "\$ gus stat -l 2 -- workload spin 1"
$gus stat -l 2 -- $workload spin 1
st=$?
if [ $st -eq 3 ] || [ $st -eq 4 ]; then
	echo
	echo "(Measured TMA needs the CPU's hardware counters, which this machine does not"
	echo " expose. gus still counts software events, and computes the tree from perf"
	echo " counts taken elsewhere:)"
	echo
	echo "\$ gus stat -e task-clock,page-faults,context-switches -- workload spin 1"
	$gus stat -e task-clock,page-faults,context-switches -- $workload spin 1
	echo "\$ gus stat --import examples/perf-topdown-icx.csv --arch icx"
	$gus stat --import examples/perf-topdown-icx.csv --arch icx
fi
echo
echo "(The simulated half: the workload's hot loop, spin_loop, on the Skylake-SP"
echo " core model, with the resources that limit it found by sensitivity analysis:)"
echo
echo "\$ gus sim --bin workload --function spin_loop"
$gus sim --bin $workload --function spin_loop
echo
echo "(The same loop on its real instruction stream: the workload runs under the"
echo " QEMU tracer, which needs no hardware support, and the model replays what it"
echo " executed:)"
echo
echo "\$ gus sim --trace --qemu --function spin_loop --max-insns 200000 -- workload spin 0.05"
$gus sim --trace --qemu --function spin_loop --max-insns 200000 -- $workload spin 0.05
