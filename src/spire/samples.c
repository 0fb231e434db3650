/* SPDX-License-Identifier: GPL-2.0-or-later */
/* placeholder: being written */
#include "spire.h"
