/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recording's internals: messages through the caller's recording_log. */
#ifndef GUS_REC_INTERNAL_H
#define GUS_REC_INTERNAL_H

#include "recording.h"

#define rec_warn(log, ...) recording_say(log, RECORDING_MSG_WARNING, __VA_ARGS__)
#define rec_error(log, ...) recording_say(log, RECORDING_MSG_ERROR, __VA_ARGS__)
/* an option's value is wrong: logged, RECORDING_USAGE */
enum recording_status rec_usage(const struct recording_log *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* RECORDING_* for a collect_status */
enum recording_status rec_status(enum collect_status st, int exec_errno);

#endif
