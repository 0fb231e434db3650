#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build-libperf.sh - build the Linux kernel's libperf (tools/lib/perf) from
# the distribution's linux-source package into a local, static-only prefix.
#
# Default prefix: <repo>/.deps/libperf. Layout after a successful run:
#   PREFIX/include/perf/*.h
#   PREFIX/lib/libperf.a
#   PREFIX/lib/libapi.a            (libperf.a needs it: fdarray__* symbols)
#   PREFIX/lib/pkgconfig/libperf.pc
# No shared objects are installed, so "-lperf" always links statically.
#
# Usage: scripts/build-libperf.sh [--prefix DIR] [--force] [--keep] [--metric-files DIR]
#
# Environment:
#   CC                     compiler (default: gcc)
#   LIBPERF_EXTRA_CFLAGS   extra CFLAGS for libperf/libapi (default: -O2;
#                          upstream builds them without any -O otherwise)
#   JOBS                   parallel make jobs (default: nproc)

set -Eeuo pipefail

prog=build-libperf
script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
repo_root=$(cd -- "$script_dir/.." && pwd -P)

prefix="$repo_root/.deps/libperf"
workdir="$repo_root/.deps/build"
force=0
keep=0
metric_dir=

msg() { printf '%s: %s\n' "$prog" "$*"; }
die() { printf '%s: error: %s\n' "$prog" "$*" >&2; exit 1; }

usage() {
	cat <<EOF
Usage: $0 [--prefix DIR] [--force] [--keep] [--metric-files DIR]

Build libperf from /usr/src/linux-source-*.tar.xz (Debian package
linux-source) and install it, static-only, into a local prefix.

  --prefix DIR   install prefix (default: $repo_root/.deps/libperf)
  --force        rebuild even if PREFIX already holds a working install
  --keep         keep the extraction/build dir ($workdir)
  --metric-files DIR
                 also take the kernel's x86 metric and event files
                 (tools/perf/pmu-events/arch/x86) out of the tarball, in the
                 same pass, into DIR/linux-source-*/ (tools/tmagen reads
                 them); nothing is extracted when libperf is installed already
  -h, --help     show this help
EOF
}

while [ $# -gt 0 ]; do
	case "$1" in
	--prefix)
		[ $# -ge 2 ] || die "--prefix needs an argument"
		prefix=$2
		shift 2
		;;
	--prefix=*)
		prefix=${1#--prefix=}
		shift
		;;
	--force) force=1; shift ;;
	--keep) keep=1; shift ;;
	--metric-files)
		[ $# -ge 2 ] || die "--metric-files needs an argument"
		metric_dir=$2
		shift 2
		;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument: $1" ;;
	esac
done

[ -n "$prefix" ] || die "--prefix must not be empty"
prefix=$(realpath -m -- "$prefix")
[ "$prefix" != / ] || die "refusing to use / as prefix"
# The kernel's Makefiles cannot cope with whitespace or quotes in paths.
case "$prefix$workdir" in
*[[:space:]\'\"\\\$\#]*) die "paths must not contain whitespace or shell/make metacharacters: $prefix, $workdir" ;;
*) ;;
esac

libdir="$prefix/lib"
pcfile="$libdir/pkgconfig/libperf.pc"

# A prefix counts as installed when the header, both archives and a .pc file
# that points at this very prefix are present.
installed_ok() {
	local p=$1 pc=$2
	[ -f "$p/include/perf/core.h" ] && [ -f "$p/include/perf/evsel.h" ] &&
		[ -f "$p/lib/libperf.a" ] && [ -f "$p/lib/libapi.a" ] &&
		[ -f "$pc" ] && grep -qxF "prefix=$p" "$pc"
}

if [ "$force" -eq 0 ] && installed_ok "$prefix" "$pcfile"; then
	msg "libperf already installed in $prefix (use --force to rebuild)"
	exit 0
fi

# ---------------------------------------------------------------------------
# Prerequisites: libperf needs only a C toolchain, make, binutils, the libc
# and kernel UAPI headers, plus tar/xz for the source. No flex/bison/libelf.
# ---------------------------------------------------------------------------
cc=${CC:-gcc}
read -r -a cc_cmd <<<"$cc"   # CC may carry a wrapper/flags, e.g. "ccache gcc"
[ ${#cc_cmd[@]} -gt 0 ] || die "CC is empty"
missing_pkgs=()
need_cmd() { # need_cmd COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 || missing_pkgs+=("$2")
}
if [ -n "${CC:-}" ]; then
	command -v "${cc_cmd[0]}" >/dev/null 2>&1 || die "CC=$CC: '${cc_cmd[0]}' not found"
else
	need_cmd gcc gcc
fi
need_cmd make make
need_cmd ar binutils
need_cmd ld binutils
need_cmd as binutils
need_cmd tar tar
need_cmd xz xz-utils
need_cmd install coreutils
need_cmd sed sed
need_cmd grep grep
[ -f /usr/include/stdio.h ] || missing_pkgs+=(libc6-dev)
[ -f /usr/include/linux/perf_event.h ] || missing_pkgs+=(linux-libc-dev)

find_tarball() {
	local t
	t=$(printf '%s\n' /usr/src/linux-source-*.tar.xz | sort -V | tail -n 1)
	[ -f "$t" ] && printf '%s\n' "$t"
}
tarball=$(find_tarball || true)
[ -n "$tarball" ] || missing_pkgs+=(linux-source)

if [ ${#missing_pkgs[@]} -gt 0 ]; then
	# shellcheck disable=SC2207  # package names contain no whitespace
	missing_pkgs=($(printf '%s\n' "${missing_pkgs[@]}" | sort -u))
	if [ "$(id -u)" -ne 0 ]; then
		die "missing packages: ${missing_pkgs[*]} (run: sudo apt-get install ${missing_pkgs[*]})"
	fi
	command -v apt-get >/dev/null 2>&1 ||
		die "missing packages: ${missing_pkgs[*]} and apt-get is not available"
	msg "installing ${missing_pkgs[*]} with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || die "apt-get update failed"
	apt-get install -y -qq --no-install-recommends "${missing_pkgs[@]}" >/dev/null ||
		die "apt-get install ${missing_pkgs[*]} failed"
	command -v "${cc_cmd[0]}" >/dev/null 2>&1 || die "compiler '${cc_cmd[0]}' still not found"
	tarball=$(find_tarball || true)
	[ -n "$tarball" ] ||
		die "no /usr/src/linux-source-*.tar.xz even after installing linux-source" \
			"(if the package is installed but the file was deleted: apt-get install --reinstall linux-source-<version>)"
fi

mkdir -p -- "$(dirname -- "$prefix")" "$repo_root/.deps" 2>/dev/null ||
	die "cannot create $(dirname -- "$prefix") or $repo_root/.deps"

# Serialise concurrent runs (e.g. from parallel make).
if command -v flock >/dev/null 2>&1; then
	lockfile="$repo_root/.deps/.build-libperf.lock"
	{ exec 9>"$lockfile"; } 2>/dev/null || die "cannot write $lockfile"
	flock 9
	if [ "$force" -eq 0 ] && installed_ok "$prefix" "$pcfile"; then
		msg "libperf already installed in $prefix (built by a concurrent run)"
		exit 0
	fi
fi

# ---------------------------------------------------------------------------
# Extract only the parts of the tree libperf's build uses.
# ---------------------------------------------------------------------------
topdir=$(basename -- "$tarball" .tar.xz)   # e.g. linux-source-6.1
srcdir="$workdir/$topdir"
log="$workdir/build.log"
stage="$prefix.tmp.$$"
old="$prefix.old.$$"
success=0

cleanup() {
	local rc=$?
	if [ -e "$old" ] && [ ! -e "$prefix" ]; then
		mv -- "$old" "$prefix" || true
	fi
	rm -rf -- "$stage" "$old"
	if [ "$success" -ne 1 ]; then
		[ -f "$log" ] && { printf '%s: last lines of %s:\n' "$prog" "$log" >&2; tail -n 25 "$log" >&2; }
		printf '%s: error: build failed (exit %s); %s left untouched, work dir kept in %s\n' \
			"$prog" "$rc" "$prefix" "$workdir" >&2
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=$SECONDS
rm -rf -- "$workdir"
mkdir -p -- "$workdir"
: >"$log"

msg "extracting libperf sources from $tarball"
# xz -T0 decompresses multi-block archives in parallel (xz >= 5.4).
# Patterns: '*' must not cross '/', so tools/lib/*.c means only top-level files.
# With --metric-files the metric files come out of the same pass: the
# tarball is decompressed once (xz is the slow part).
metric_pattern=()
[ -z "$metric_dir" ] || metric_pattern=("$topdir/tools/perf/pmu-events/arch/x86")
xz -T0 -dc -- "$tarball" |
	tar -x -C "$workdir" --wildcards --no-wildcards-match-slash \
		"$topdir/tools/lib/perf" \
		"$topdir/tools/lib/api" \
		"$topdir/tools/lib/*.c" \
		"$topdir/tools/include" \
		"$topdir/tools/arch/*/include" \
		"$topdir/tools/build" \
		"$topdir/tools/scripts" \
		"${metric_pattern[@]}" ||
	die "extracting $tarball failed"
[ -f "$srcdir/tools/lib/perf/Makefile" ] || die "tools/lib/perf missing from $tarball"
if [ -n "$metric_dir" ]; then
	[ -d "$srcdir/tools/perf/pmu-events/arch/x86" ] || die "tools/perf/pmu-events/arch/x86 missing from $tarball"
	mkdir -p -- "$metric_dir/$topdir/tools/perf/pmu-events/arch" || die "cannot create $metric_dir"
	[ ! -e "$metric_dir/$topdir/tools/perf/pmu-events/arch/x86" ] ||
		die "$metric_dir/$topdir/tools/perf/pmu-events/arch/x86 exists already"
	mv -- "$srcdir/tools/perf/pmu-events/arch/x86" "$metric_dir/$topdir/tools/perf/pmu-events/arch/x86" ||
		die "cannot move the metric files into $metric_dir"
	msg "metric files in $metric_dir/$topdir/tools/perf/pmu-events/arch/x86"
fi

# ---------------------------------------------------------------------------
# Build and install into a staging prefix next to the final one.
# ---------------------------------------------------------------------------
# Keep a calling make's variables/jobserver and stray build variables out.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES DESTDIR O OUTPUT srctree
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
extra_cflags=${LIBPERF_EXTRA_CFLAGS--O2}
# libdir_relative=lib: upstream picks lib64 on LP64 hosts; use a fixed "lib".
make_args=(-C "$srcdir/tools/lib/perf" "CC=$cc" libdir_relative=lib "EXTRA_CFLAGS=$extra_cflags")

msg "building libperf (make -j$jobs, EXTRA_CFLAGS=$extra_cflags; log: $log)"
make -j"$jobs" "${make_args[@]}" prefix="$prefix" >>"$log" 2>&1 ||
	die "make failed"

msg "installing into staging dir $stage"
rm -rf -- "$stage"
make "${make_args[@]}" prefix="$stage" \
	install_lib install_headers install_pkgconfig >>"$log" 2>&1 ||
	die "make install failed"

[ -f "$stage/lib/libperf.a" ] || die "libperf.a was not installed into $stage/lib"
[ -f "$stage/include/perf/core.h" ] || die "headers were not installed into $stage/include"
[ -f "$srcdir/tools/lib/api/libapi.a" ] || die "libapi.a was not built"

# libperf.a does not contain libapi's objects (it references fdarray__*), so
# ship libapi.a as well. Drop shared objects: the project links statically.
install -m 644 "$srcdir/tools/lib/api/libapi.a" "$stage/lib/libapi.a"
rm -f -- "$stage"/lib/libperf.so*

version=$(sed -n 's/^Version:[[:space:]]*//p' "$srcdir/tools/lib/perf/libperf.pc")
kver=${topdir#linux-source-}
pkgver=$(dpkg-query -W -f='${Version}' "$topdir" 2>/dev/null || true)
mkdir -p -- "$stage/lib/pkgconfig"
cat >"$stage/lib/pkgconfig/libperf.pc" <<EOF
# Generated by scripts/build-libperf.sh from $tarball${pkgver:+ (Debian package $topdir $pkgver)}.
# Static-only install: libperf.a needs libapi.a (fdarray__*).
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: libperf
Description: perf library (Linux $kver tools/lib/perf, static)
Version: ${version:-0.0.1}
Libs: -L\${libdir} -lperf -lapi
Cflags: -I\${includedir}
EOF

# Link smoke test against the staged files (does not need perf_event access).
msg "checking that a program links against the staged libperf"
cat >"$workdir/linktest.c" <<'EOF'
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/threadmap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/event.h>
#include <perf/mmap.h>
int main(void)
{
	struct perf_evlist *evlist;

	libperf_init(NULL);
	evlist = perf_evlist__new();
	perf_evlist__delete(evlist);
	return 0;
}
EOF
"${cc_cmd[@]}" -I"$stage/include" -o "$workdir/linktest" "$workdir/linktest.c" \
	"$stage/lib/libperf.a" "$stage/lib/libapi.a" >>"$log" 2>&1 ||
	die "test program failed to compile/link against the staged libperf"

# Swap the staged install into place.
if [ -e "$prefix" ]; then
	mv -- "$prefix" "$old"
fi
mv -- "$stage" "$prefix" || die "could not move $stage to $prefix"
rm -rf -- "$old"
installed_ok "$prefix" "$pcfile" || die "install in $prefix is incomplete"

success=1
if [ "$keep" -eq 1 ]; then
	msg "keeping work dir $workdir"
else
	rm -rf -- "$workdir"
fi
msg "installed libperf $version (Linux $kver) into $prefix in $((SECONDS - start))s"
msg "use: PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs libperf"
