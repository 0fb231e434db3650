/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus: entry point, command dispatch, help and version. */
#include "config.h"

#include "cmd.h"
#include "merge.h"
#include "render.h"
#include "recording.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

const char *gus_progname = "gus";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "stat", cmd_stat, "count a program and print its Top-Down (TMA) tree, levels 1-3" },
	{ "sim", cmd_sim, "simulate a loop on the core model: cycles, bottlenecks by sensitivity" },
	{ "record", cmd_record, "run a program: counters, samples, hot regions and their instruction stream into gus.data" },
	{ "import", cmd_import, "a perf.data of perf record as a gus recording (gus report -i perf.data reads one too)" },
	{ "report", cmd_report, "measured Top-Down next to simulated speedups, per hot region of a recording" },
	{ "spire", cmd_spire, "bottlenecks from counter samples: train and apply a statistical roofline ensemble" },
	{ "script", cmd_script, "print the instruction stream of a recording or of a QEMU-traced run" },
	{ "list", cmd_list, "the CPUs gus has TMA tables and core models for, a table's nodes and events" },
	{ "help", NULL, "show the manual page of a command (help data: the gus.data format)" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void list_commands(FILE *out)
{
	fprintf(out, "commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-6s %s\n", commands[i].name, commands[i].summary);
}

static void vmessage(const char *prefix, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	/* messages quote paths, names and facts of recordings: escaped
	 * text (merge.h), so that none moves the terminal */
	char *text = NULL;
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	fprintf(stderr, "%s: %s", gus_progname, prefix);
	render_text_string(stderr, text ? text : fmt);
	fputc('\n', stderr);
	free(text);
}

void gus_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void gus_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

int gus_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
	list_commands(stderr);
	fprintf(stderr, "see 'gus --help' and 'gus help COMMAND'\n");
	return GUS_EXIT_USAGE;
}

int gus_parse_on_off(const char *opt, const char *arg, int *v)
{
	if (!strcmp(arg, "on"))
		*v = 1;
	else if (!strcmp(arg, "off"))
		*v = 0;
	else
		return gus_usage_error("%s takes on or off, not '%s'", opt, arg);
	return 0;
}

/* ------------------------------------------------------- write errors --- */
static bool std_reported[2];	/* standard output, standard error */

int gus_flush_std(FILE *stream)
{
	bool err = stream == stderr;
	errno = 0;
	int flush_errno = fflush(stream) ? errno : 0;
	if (!flush_errno && !ferror(stream))
		return 0;
	if (!std_reported[err]) {
		std_reported[err] = true;
		/* a failed write whose buffer another flush dropped leaves no
		 * errno behind */
		gus_error("%s: %s", err ? "standard error" : "standard output",
			  flush_errno ? strerror(flush_errno) : "write error");
	}
	return -1;
}

/* The last thing gus does, as any command's output may still sit in
 * stdio's buffer: a full disk or a closed descriptor is an error (exit 1)
 * unless the command had failed already, whose status stands. */
static int close_stdout(int rc)
{
	int failed = gus_flush_std(stdout);
	errno = 0;
	if (fclose(stdout) && !failed && errno != EBADF) {
		/* EBADF: standard output was closed and gus wrote nothing */
		if (!std_reported[0])
			gus_error("standard output: %s", strerror(errno));
		failed = -1;
	}
	return failed && !rc ? GUS_EXIT_ERROR : rc;
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* gus runs uninstalled when its binary sits in the build tree: data files
 * and man pages then come from the source tree. */
static bool running_uninstalled(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return false;
	*slash = 0;
	return !strcmp(exe, GUS_ABS_BUILDDIR);
}

const char *gus_data_dir(const char *sub)
{
	static char dir[4][PATH_MAX];
	static int next;
	char *d = dir[next++ % 4];
	const char *env = getenv("GUS_DATADIR");
	char src[PATH_MAX];
	snprintf(src, sizeof(src), "%s/data/%s", GUS_ABS_SRCDIR, sub);
	if (env && *env)
		snprintf(d, PATH_MAX, "%s/%s", env, sub);
	else if (running_uninstalled() && is_dir(src))
		snprintf(d, PATH_MAX, "%s", src);
	else
		snprintf(d, PATH_MAX, "%s/%s", GUS_PKGDATADIR, sub);
	return d;
}

/* The TMA tables. Installed, all are in one directory: those generated
 * from the kernel's metric files (or, in a build without them, the
 * hand-written ones). Uninstalled, the generated ones are in the build
 * tree and the hand-written ones in the source tree's data/tma/hand, the
 * fallback for a CPU the kernel's files lack. GUS_TMA_PATH (a
 * ':'-separated list) names others. */
const char *gus_tma_dir(void)
{
	static char path[3 * PATH_MAX + 3];
	const char *env = getenv("GUS_TMA_PATH");
	if (env && *env)
		return env;
	const char *dir = gus_data_dir("tma");
	char gen[PATH_MAX], hand[PATH_MAX + 8];
	snprintf(gen, sizeof gen, "%s/tma-gen", GUS_ABS_BUILDDIR);
	snprintf(hand, sizeof hand, "%s/hand", dir);
	const char *datadir = getenv("GUS_DATADIR");
	bool uninstalled = (!datadir || !*datadir) && running_uninstalled();
	snprintf(path, sizeof path, "%s%s%s%s%s", uninstalled && is_dir(gen) ? gen : "",
		 uninstalled && is_dir(gen) ? ":" : "", dir, is_dir(hand) ? ":" : "", is_dir(hand) ? hand : "");
	return path;
}

static void terminal_message(void *ctx, enum recording_msg kind, const char *text)
{
	(void)ctx;
	if (kind == RECORDING_MSG_WARNING)
		gus_warn("%s", text);
	else if (kind == RECORDING_MSG_USAGE)
		gus_usage_error("%s", text);
	else
		gus_error("%s", text);
}

const struct recording_log *gus_terminal_log(void)
{
	static const struct recording_log log = { .message = terminal_message };
	return &log;
}

/* one status line on a terminal, redrawn as the work goes on; elsewhere
 * only the phase lines (a report has none: nothing then) */
static void terminal_progress(void *ctx, bool phase, const char *text)
{
	struct gus_progress *p = ctx;
	if (!phase && !p->tty)
		return;
	/* a line redrawn in place must not wrap: an update is cut to the
	 * terminal's width (a phase line stays whole) */
	char cut[512];
	struct winsize ws;
	size_t room = 0;
	if (p->tty && !phase && ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		room = (size_t)ws.ws_col > strlen(p->command) + 12 ? ws.ws_col - strlen(p->command) - 12 : 1;
	if (room && strlen(text) > room) {
		size_t n = room > 3 ? room - 3 : 1;
		if (n > sizeof cut - 4)
			n = sizeof cut - 4;
		while (n && ((unsigned char)text[n] & 0xC0) == 0x80)
			n--;
		snprintf(cut, sizeof cut, "%.*s...", (int)n, text);
		text = cut;
	}
	fprintf(stderr, "%s[ gus %s: ", p->tty ? "\r\033[K" : "", p->command);
	render_text_string(stderr, text);
	fputs(p->tty ? " ]" : " ]\n", stderr);
	fflush(stderr);
}

static void terminal_progress_end(void *ctx)
{
	struct gus_progress *p = ctx;
	if (p->tty) {
		fputs(p->clear_at_end ? "\r\033[K" : "\n", stderr);
		fflush(stderr);
	}
}

struct recording_log gus_progress_log(struct gus_progress *p, const char *command, bool quiet, bool clear_at_end)
{
	*p = (struct gus_progress){ .command = command, .tty = isatty(2), .clear_at_end = clear_at_end };
	return (struct recording_log){ .ctx = p, .message = terminal_message,
				       .progress = quiet ? NULL : terminal_progress,
				       .progress_end = quiet ? NULL : terminal_progress_end };
}

int gus_exit_for(enum recording_status st)
{
	switch (st) {
	case RECORDING_OK: return GUS_EXIT_OK;
	case RECORDING_USAGE: return GUS_EXIT_USAGE;
	case RECORDING_NO_PMU: return GUS_EXIT_NO_PMU;
	case RECORDING_NO_PERMISSION: return GUS_EXIT_NO_PERMISSION;
	case RECORDING_NO_PT: return GUS_EXIT_NO_PT;
	case RECORDING_CANNOT_EXECUTE: return GUS_EXIT_CANNOT_EXECUTE;
	case RECORDING_NOT_FOUND: return GUS_EXIT_NOT_FOUND;
	default: return GUS_EXIT_ERROR;
	}
}

static char host_machine[16], host_machine_why[400];

const char *gus_host_machine(void)
{
	if (!host_machine[0])
		recording_host_machine(gus_data_dir("machines"), host_machine, sizeof host_machine, host_machine_why,
				       sizeof host_machine_why);
	return host_machine;
}

const char *gus_host_machine_why(void)
{
	gus_host_machine();
	return host_machine_why;
}

static int usage(FILE *out)
{
	fprintf(out,
		"usage: gus <command> [options] [-- program args]\n"
		"       gus --help | --version | help <command>\n\n"
		"gus puts the measured Top-Down breakdown of a program next to a simulated\n"
		"sensitivity analysis of its hot code.\n\n");
	list_commands(out);
	fprintf(out, "\nexit status: 0 ok; 1 error; 2 usage; 3 no hardware PMU; 4 no permission;\n"
		     "5 no Intel PT (gus record --tracer pt);\n"
		     "a command that runs a program exits with the program's status (128+N when\n"
		     "killed by signal N), 126/127 when it cannot be executed. See gus(1).\n");
	return out == stdout ? GUS_EXIT_OK : GUS_EXIT_USAGE;
}

/* gus help CMD: the man page, from the build tree when uninstalled. */
static int help_command(const char *name)
{
	char page[64], local[PATH_MAX];
	if (!name)
		return usage(stdout);
	/* gus help data: the recording's format, gus-data(5) */
	bool file_format = !strcmp(name, "data");
	bool known = !strcmp(name, "gus") || file_format;
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			known = true;
	if (!known)
		return gus_usage_error("no such command '%s'", name);
	snprintf(page, sizeof(page), strcmp(name, "gus") ? "gus-%s" : "gus", name);
	if (!strcmp(name, "help"))
		snprintf(page, sizeof(page), "gus");
	int section = file_format ? 5 : 1;
	snprintf(local, sizeof(local), "%s/man/%s.%d", GUS_ABS_SRCDIR, page, section);
	bool uninstalled = running_uninstalled() && access(local, R_OK) == 0;
	fflush(NULL);
	if (uninstalled)
		execlp(GUS_MAN, "man", "-l", local, (char *)NULL);
	else
		execlp(GUS_MAN, "man", section == 5 ? "5" : "1", page, (char *)NULL);
	gus_error("cannot run man to show %s(%d): %s; the page is %s", page, section, strerror(errno),
		  uninstalled ? local : section == 5 ? "installed under $(mandir)/man5" : "installed under $(mandir)/man1");
	return GUS_EXIT_ERROR;
}

static int run_command(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return usage(stdout);
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("gus %s\n", PACKAGE_VERSION);
		return GUS_EXIT_OK;
	}
	if (!strcmp(cmd, "help"))
		return help_command(argc > 2 ? argv[2] : NULL);
	if (cmd[0] == '-')
		return gus_usage_error("unknown option '%s'", cmd);
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i].run && !strcmp(cmd, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	return gus_usage_error("unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
	/* off a terminal, what a command prints (a help text, a list) stays
	 * in one buffer until the end, where a failed write still has its
	 * errno: glibc drops a buffer whose write failed mid-way, and the
	 * reason with it. A terminal keeps its line buffering. */
	static char out_buffer[1 << 16];
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);
	return close_stdout(run_command(argc, argv));
}

int gus_find_program(const char *name, char *out, size_t outlen)
{
	return gus_exit_for(recording_find_program(name, out, outlen, gus_terminal_log()));
}
