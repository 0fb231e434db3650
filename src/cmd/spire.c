/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus spire: train and analyze SPIRE models. */
#include "cmd.h"
int cmd_spire(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return 1;
}
