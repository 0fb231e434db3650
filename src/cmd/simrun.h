/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A real instruction stream turned into model records, for the commands
 * that simulate traces (gus sim --trace, gus report). */
#ifndef GUS_CMD_SIMRUN_H
#define GUS_CMD_SIMRUN_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"
#include "stream.h"

/* The sink's state: records decoded into CODE and appended to RECS. */
struct simrun_collect {
	struct sim_code *code;
	struct sim_rec *recs;
	size_t n, cap;
	uint64_t undecodable;
	uint64_t first_bad_ip;
	char first_bad[256];
	bool data_addresses;	/* use the stream's data addresses */
	/* optional: keep only records in [lo, hi) (hi 0: all), at most max
	 * of them (0: no limit) */
	uint64_t lo, hi;
	size_t max;
	uint64_t skipped;	/* records outside [lo, hi) or past max */
};

/* a stream_sink filling a struct simrun_collect */
int simrun_collect_sink(void *ctx, const struct stream_insn *v, size_t n);
void simrun_collect_free(struct simrun_collect *c);

/* The resources a default sweep covers: the port groups and the divider
 * the code uses, and every resource that is not a port group. */
size_t simrun_default_resources(const struct sim_machine *m, const struct sim_code *code, uint8_t *res);

/* The replayable source of a collected stream: the first quarter warms
 * caches, predictor and window; after it, executions of HEAD count the
 * units (iterations), or instructions when HEAD is 0. */
struct sim_source simrun_source(const struct simrun_collect *c, uint64_t head);

/* --weights: FROM:TO:STEP or a list; a usage error is printed */
int simrun_parse_weights(const char *s, double **out, size_t *n);
#define SIMRUN_DEFAULT_WEIGHTS "1.00:1.15:0.01"

#endif
