/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Messages of the recording pipeline, through the caller's log. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "rec_internal.h"

static void rec_vmsg(const struct recording_log *log, enum recording_msg kind, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void rec_vmsg(const struct recording_log *log, enum recording_msg kind, const char *fmt, va_list ap)
{
	char text[2048];
	vsnprintf(text, sizeof text, fmt, ap);
	if (log && log->message)
		log->message(log->ctx, kind, text);
}

void recording_say(const struct recording_log *log, enum recording_msg kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rec_vmsg(log, kind, fmt, ap);
	va_end(ap);
}

void rec_say_whole(const struct recording_log *log, enum recording_msg kind, const char *fmt, ...)
{
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!text)
		abort();
	vsnprintf(text, (size_t)n + 1, fmt, again);
	va_end(again);
	if (log && log->message)
		log->message(log->ctx, kind, text);
	free(text);
}

enum recording_status rec_usage(const struct recording_log *log, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rec_vmsg(log, RECORDING_MSG_USAGE, fmt, ap);
	va_end(ap);
	return RECORDING_USAGE;
}

enum recording_status rec_status(enum collect_status st, int exec_errno)
{
	switch (st) {
	case COLLECT_OK: return RECORDING_OK;
	case COLLECT_NO_PMU: return RECORDING_NO_PMU;
	case COLLECT_NO_PERMISSION: return RECORDING_NO_PERMISSION;
	case COLLECT_EXEC_FAILED: return exec_errno == ENOENT ? RECORDING_NOT_FOUND : RECORDING_CANNOT_EXECUTE;
	default: return RECORDING_ERROR;
	}
}

void recording_progress(const struct recording_log *log, bool phase, const char *fmt, ...)
{
	if (!log || !log->progress)
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	log->progress(log->ctx, phase, line);
}

void recording_progress_end(const struct recording_log *log)
{
	if (log && log->progress_end)
		log->progress_end(log->ctx);
}
