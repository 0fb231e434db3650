/* SPDX-License-Identifier: GPL-2.0-or-later */
/* collect_kallsyms: /proc/kallsyms's text as the kernel writes it (aliases
 * at one address, module functions, data symbols among them), a copy
 * whose addresses kptr_restrict hid, malformed lines, and the real file
 * of this machine where it is readable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "tap.h"

static struct collect_kallsyms *parse(const char *text, char *err, size_t errlen)
{
	size_t len = strlen(text);
	char *copy = malloc(len + 1);
	memcpy(copy, text, len + 1);
	struct collect_kallsyms *k;
	return collect_kallsyms_parse(copy, len, &k, err, errlen) ? NULL : k;
}

static const char *name_at(const struct collect_kallsyms *k, uint64_t addr)
{
	const struct collect_ksym *f = collect_kallsyms_find(k, addr);
	return f ? f->name : "(none)";
}

int main(void)
{
	char err[COLLECT_ERRLEN] = "";
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81000000 t startup_64\n"
		"ffffffff81001000 T entry_SYSCALL_64\n"
		"ffffffff81001000 t __pfx_entry_SYSCALL_64\n"
		"ffffffff81001100 T do_syscall_64\n"
		"ffffffff81002000 D some_data\n"
		"ffffffff81003000 W weak_func\n"
		"not a line\n"
		"ffffffff8100zz00 T broken\n"
		"ffffffff81004000 TT wide_type\n"
		"ffffffffc0a01000 t kvm_vcpu_ioctl\t[kvm]\n"
		"ffffffffc0a02000 t odd_module\t[unclosed\n"
		"ffffffffc0a03000 t last_one";	/* no newline at the end */
	struct collect_kallsyms *k = parse(text, err, sizeof err);
	tap_ok(k != NULL, "kallsyms: parsed (%s)", err);
	if (!k)
		return tap_done();
	/* functions only: _stext/_text/startup_64 one, entry and its pfx one,
	 * do_syscall_64, weak_func, kvm_vcpu_ioctl, odd_module, last_one */
	tap_ok(collect_kallsyms_count(k) == 7, "kallsyms: 7 functions, one per address, data and bad lines left "
	       "out (%zu)", collect_kallsyms_count(k));
	tap_ok(!strcmp(name_at(k, 0xffffffff81000010ULL), "_text"),
	       "aliases: the global name with the fewest underscores, then the shorter (%s)",
	       name_at(k, 0xffffffff81000010ULL));
	tap_ok(!strcmp(name_at(k, 0xffffffff81001000ULL), "entry_SYSCALL_64"), "aliases: not the __pfx_ padding (%s)",
	       name_at(k, 0xffffffff81001000ULL));
	tap_ok(!strcmp(name_at(k, 0xffffffff81001fffULL), "do_syscall_64"),
	       "a function runs up to the next one, data symbols skipped (%s)", name_at(k, 0xffffffff81001fffULL));
	tap_ok(!strcmp(name_at(k, 0xffffffff81003008ULL), "weak_func"), "weak functions kept (%s)",
	       name_at(k, 0xffffffff81003008ULL));
	const struct collect_ksym *m = collect_kallsyms_find(k, 0xffffffffc0a01010ULL);
	tap_ok(m && !strcmp(m->name, "kvm_vcpu_ioctl") && !strcmp(m->module, "kvm"),
	       "a module's function and its module (%s [%s])", m ? m->name : "-", m ? m->module : "-");
	m = collect_kallsyms_find(k, 0xffffffffc0a02000ULL);
	tap_ok(m && !strcmp(m->name, "odd_module") && !m->module[0], "an unclosed module name: none (%s)",
	       m ? m->module : "-");
	tap_ok(!strcmp(name_at(k, 0xffffffffc0a03000ULL + 4095), "last_one") &&
		       !collect_kallsyms_find(k, 0xffffffffc0a03000ULL + 4096),
	       "the last line without a newline; the last function a page long");
	tap_ok(!collect_kallsyms_find(k, 0xffffffff80ffffffULL), "below the first function: none");
	collect_kallsyms_free(k);

	/* out of address order (sorted here, not trusted to be), aliases
	 * apart; an address of 17 digits is no address */
	k = parse("ffffffff81001100 T do_syscall_64\n"
		  "ffffffff81000000 t startup_64\n"
		  "1ffffffff81000800 T too_long\n"
		  "ffffffff81001000 t __pfx_entry_SYSCALL_64\n"
		  "ffffffff81000000 T _text\n"
		  "ffffffff81001000 T entry_SYSCALL_64\n",
		  err, sizeof err);
	tap_ok(k && collect_kallsyms_count(k) == 3 && !strcmp(name_at(k, 0xffffffff81000900ULL), "_text") &&
		       !strcmp(name_at(k, 0xffffffff81001000ULL), "entry_SYSCALL_64") &&
		       !strcmp(name_at(k, 0xffffffff81001100ULL), "do_syscall_64"),
	       "out of order: sorted, the best alias kept, a 17-digit address skipped (%zu)",
	       k ? collect_kallsyms_count(k) : 0);
	collect_kallsyms_free(k);

	/* kptr_restrict: every address shown as 0 */
	k = parse("0000000000000000 T _text\n0000000000000000 T do_syscall_64\n", err, sizeof err);
	tap_ok(!k && strstr(err, "kptr_restrict"), "addresses hidden: said, with kptr_restrict (%s)", err);
	k = parse("", err, sizeof err);
	tap_ok(!k && strstr(err, "no kernel function"), "empty: no function (%s)", err);

	/* a missing file: named */
	tap_ok(collect_kallsyms_read("/nonexistent/kallsyms", &k, err, sizeof err) && strstr(err, "/nonexistent/kallsyms"),
	       "a missing file: an error naming it (%s)", err);

	/* this machine's */
	size_t sync_n = 0;
	if (!collect_kallsyms_read("/proc/kallsyms", &k, err, sizeof err)) {
		sync_n = collect_kallsyms_count(k);
		tap_ok(sync_n > 1000, "/proc/kallsyms: %zu functions", sync_n);
		collect_kallsyms_free(k);
	} else {
		tap_ok(strstr(err, "/proc/kallsyms") != NULL, "/proc/kallsyms unreadable here: said (%s)", err);
	}

	/* read on a thread (gus record starts it as run 1 starts): the same
	 * functions, the same error for a missing file, and freed unwaited */
	struct collect_kallsyms_async *a = collect_kallsyms_read_async("/proc/kallsyms");
	tap_ok(a != NULL, "the read on a thread started");
	if (a) {
		int rc = collect_kallsyms_wait(a, &k, err, sizeof err);
		tap_ok(sync_n ? !rc && collect_kallsyms_count(k) > 1000 && collect_kallsyms_count(k) + 100 > sync_n
			      : rc && strstr(err, "/proc/kallsyms") != NULL,
		       "on a thread: %zu functions (%zu read directly)", rc ? 0 : collect_kallsyms_count(k), sync_n);
		collect_kallsyms_free(k);
		collect_kallsyms_async_free(a);
	}
	a = collect_kallsyms_read_async("/nonexistent/kallsyms");
	if (a) {
		k = NULL;
		int rc = collect_kallsyms_wait(a, &k, err, sizeof err);
		tap_ok(rc && !k && strstr(err, "/nonexistent/kallsyms"), "on a thread, a missing file: named (%s)", err);
		collect_kallsyms_async_free(a);
	} else {
		tap_ok(0, "on a thread, a missing file: no thread started");
	}
	/* one never waited for (gus record: no sample in the kernel): its read
	 * given up, joined and freed (ASan: nothing leaks) */
	collect_kallsyms_async_free(collect_kallsyms_read_async("/proc/kallsyms"));
	collect_kallsyms_async_free(NULL);
	return tap_done();
}
