/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TMA tables (data/tma/FORMAT): td_table_parse, then node selection and
 * the tree of a made-up count set over the table's own events. */
#include "fuzz.h"
#include "topdown.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	char *text = fuzz_cstr(data, size);
	struct td_table *t = td_table_parse(text, "fuzz.tma", err, sizeof err);
	free(text);
	if (!t)
		return 0;
	td_table_has_name(t, "clx");
	td_table_has_pmu(t, "cpu");
	td_node_index(t, "Backend_Bound");
	td_table_find_event(t, "cpu_clk_unhalted.thread");
	bool *sel = td_select_nodes(t, 3, "Frontend_Bound,Memory_Bound", err, sizeof err);
	free(sel);
	sel = td_select_nodes(t, 3, NULL, err, sizeof err);
	if (sel) {
		bool *needed = calloc(t->n_events ? t->n_events : 1, sizeof(*needed));
		if (!needed)
			abort();
		td_needed_events(t, sel, true, needed);
		struct td_countset cs;
		td_countset_init(&cs);
		/* counts for some events (each is looked up by name: all of
		 * them would make the evaluation quadratic in the table) */
		for (size_t e = 0; e < t->n_events && e < 24; e++) {
			double v = (double)((e * 2654435761u) % 1000003) + 1;
			if (e % 7 == 3)
				td_countset_add_uncounted(&cs, t->events[e].name, "fuzz");
			else
				td_countset_add(&cs, t->events[e].name, v, 1000.0, e % 5 ? 1000.0 : 500.0);
		}
		for (int smt = 0; smt < 2; smt++) {
			struct td_eval_opts eo = { .max_level = 3, .smt_on = smt, .select = smt ? NULL : sel };
			struct td_tree tree;
			if (!td_eval(t, &cs, &eo, &tree, err, sizeof err))
				td_tree_free(&tree);
		}
		td_countset_free(&cs);
		free(needed);
		free(sel);
	}
	td_table_free(t);
	return 0;
}
