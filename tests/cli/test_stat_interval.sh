#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
. "$TESTDIR/cli/lib.sh"
ok 0 placeholder
done_testing
