#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the Debian packages gus needs to build and test, when missing.
# Run as root (CI, a fresh machine); otherwise it names what to install.
set -eu
# clang and its runtime (libFuzzer, ASan, UBSan): the fuzz targets of tests/fuzz;
# strace: a kill injected at an exact system call (tests/cli/test_record_safety.sh);
# libc6-dbg, g++, python3 and xz-utils: the real programs of tests/cli/test_objects.sh;
# chromium: the HTML report loaded in a real browser, headless (tests/cli/test_html.sh);
# linux-source-6.12 and libjson-c-dev: the TMA tables generated from the
# kernel's metric files (tools/tmagen), and libperf (scripts/build-libperf.sh);
# linux-perf: perf records and reads perf.data files beside gus import
# (tests/cli/test_perf_import.sh compares the two);
# libdebuginfod-dev: gus import asks DEBUGINFOD_URLS for objects not here;
# debuginfod: a local server that test_perf_import.sh asks
# libprotobuf-c-dev and protobuf-c-compiler: gus report --pprof (src/render);
# golang-go: go tool pprof, the reader tests/cli/test_pprof.sh checks it with
pkgs=(gcc make autoconf automake pkg-config libpfm4-dev libjson-c-dev linux-source-6.12 libzydis-dev libelf-dev libdw-dev zlib1g-dev libiberty-dev libc6-dbg g++ python3 libsqlite3-dev sqlite3 libipt-dev qemu-user xz-utils man-db groff-base clang libclang-rt-14-dev strace chromium libprotobuf-c-dev protobuf-c-compiler golang-go linux-perf libdebuginfod-dev debuginfod)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing Debian packages: ${missing[*]}" >&2
	echo "install-deps: run: sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
dpkg_opts=()
if [ "${GUS_CI:-}" = 1 ]; then
	# a CI machine is thrown away after the run (.ci/run sets GUS_CI):
	# dpkg unpacks without an fsync per file, and man-db does not index
	# every installed manual page (the tests read gus's own with man -l)
	dpkg_opts=(-o Dpkg::Options::=--force-unsafe-io)
	echo 'man-db man-db/auto-update boolean false' | debconf-set-selections
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${dpkg_opts[@]}" "${missing[@]}" >/dev/null
