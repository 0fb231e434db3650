# SPDX-License-Identifier: GPL-2.0-or-later
# The bundled workloads: small programs with a known dominant bottleneck in
# a named hot function, built with the project (included by Makefile.am).
bundled_workloads =
noinst_PROGRAMS = $(bundled_workloads)
