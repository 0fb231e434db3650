/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line: option parsing and calls into the modules; no analysis. */
#ifndef GUS_CMD_H
#define GUS_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

/* gus's own exit statuses (gus(1), EXIT STATUS). A command that runs a
 * program exits with the program's status instead once it has run. */
enum gus_exit {
	GUS_EXIT_OK = 0,
	GUS_EXIT_ERROR = 1,		/* bad input, I/O error, failed analysis */
	GUS_EXIT_USAGE = 2,		/* unknown command or option, bad argument */
	GUS_EXIT_NO_PMU = 3,		/* no hardware PMU usable (VM, unsupported CPU) */
	GUS_EXIT_NO_PERMISSION = 4,	/* perf_event_paranoid / capabilities */
	GUS_EXIT_NO_PT = 5,		/* no Intel PT on this machine (gus record) */
	GUS_EXIT_CANNOT_EXECUTE = 126,	/* program found but not executable */
	GUS_EXIT_NOT_FOUND = 127,	/* program not found */
};

extern const char *gus_progname;

int cmd_stat(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_spire(int argc, char **argv);
int cmd_list(int argc, char **argv);

/* The recording pipeline's messages on the terminal (gus: ..., warnings,
 * usage errors with the usage hint), and its statuses as exit statuses. */
struct recording_log;
enum recording_status;
const struct recording_log *gus_terminal_log(void);
/* The same with progress on standard error ("[ gus COMMAND: ... ]"): one
 * line redrawn on a terminal (cleared at the end with CLEAR_AT_END, else
 * kept), elsewhere one line per phase; none with QUIET. P holds its state. */
struct gus_progress {
	const char *command;
	bool tty, clear_at_end;
};
struct recording_log gus_progress_log(struct gus_progress *p, const char *command, bool quiet, bool clear_at_end);
int gus_exit_for(enum recording_status st);
/* The machine model for this CPU ("spr" for Golden Cove servers, else
 * "skx"), from /proc/cpuinfo. */
const char *gus_host_machine(void);
/* which CPU the host was taken for, and how (said where the model is the default) */
const char *gus_host_machine_why(void);


/* A result file the user named (-o, --svg, --csv, a model file), by the
 * rules of outpath.h: written beside a regular file and renamed over it at
 * the end, so a failed run never leaves a complete-looking result behind;
 * a FIFO or /dev/null written in place; a directory, a device other than
 * a character device, or a gus recording refused with a message. */
struct outpath_file;
struct outfile {
	FILE *f;
	struct outpath_file *file;
	const char *path;
	int write_errno;	/* set by a caller whose writer flushed F itself and failed:
				 * stdio keeps the error, not its errno */
};
/* Whether PATH may take an output, said before a program runs so that a
 * measurement is not lost to a bad -o; 0 or -1 with the message printed. */
int outfile_check(const char *path);
int outfile_open(struct outfile *o, const char *path, FILE *dflt);
int outfile_close(struct outfile *o, bool ok);

/* NAME as execvp would find it (through PATH when it has no '/'), into
 * OUT. 0, or GUS_EXIT_NOT_FOUND / GUS_EXIT_CANNOT_EXECUTE with the
 * message printed. */
int gus_find_program(const char *name, char *out, size_t outlen);

/* $GUS_DATADIR/SUB, the source tree's data/SUB when gus runs from its
 * build tree, else the installed $(pkgdatadir)/SUB. */
const char *gus_data_dir(const char *sub);

/* Directory of the TMA tables: $GUS_DATADIR/tma, the source tree when gus
 * runs from its build tree, else the installed $(pkgdatadir)/tma. */
const char *gus_tma_dir(void);
/* "on" -> 1, "off" -> 0 into *V; anything else is a usage error naming
 * OPT (printed; returns GUS_EXIT_USAGE). */
int gus_parse_on_off(const char *opt, const char *arg, int *v);

/* Every command reads its options with gus_getopt: getopt_long (opterr
 * off, the caller reports unknown options), but an option whose argument
 * is empty is a usage error naming COMMAND and the option, printed before
 * anything runs; it returns GUS_OPT_BAD then. An empty path would
 * otherwise reach the file system as "no name" only after a program ran. */
#define GUS_OPT_BAD (-2)
int gus_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts, const char *command);
/* The option gus_getopt returned last, as the user wrote it ("--output",
 * "-o"), for messages. */
const char *gus_optname(void);

/* The numbers of options, all parsed here so that no option wraps, takes
 * a sign, a space or trailing text: decimal digits only (a size may end in
 * K, M or G, with an optional B), hex with an optional 0x. A value outside
 * [LO, HI] or that does not fit is a usage error naming OPT and the value
 * (printed; the functions return GUS_EXIT_USAGE, else 0). */
int gus_parse_uint(const char *opt, const char *arg, unsigned long long lo, unsigned long long hi,
		   unsigned long long *v);
int gus_parse_unsigned(const char *opt, const char *arg, unsigned lo, unsigned hi, unsigned *v);
/* a decimal fraction such as 2.5 or 1e-3 (no hex, infinity or NaN) */
int gus_parse_real(const char *opt, const char *arg, double lo, double hi, double *v);
/* bytes: a decimal number with an optional K, M or G suffix (KiB...) */
int gus_parse_size(const char *opt, const char *arg, unsigned long long lo, unsigned long long hi,
		   unsigned long long *bytes);
/* an address in hex, 0 to 2^64-1 */
int gus_parse_address(const char *opt, const char *arg, unsigned long long *v);
/* START-END, two addresses in hex with START < END */
int gus_parse_address_range(const char *opt, const char *arg, unsigned long long *start, unsigned long long *end);

/* 0 when PATH, the file of option OPT, is there and, a regular file, can
 * be opened; else -1 with "gus: OPT: cannot read PATH: REASON" printed. A
 * missing or unreadable input file is an error (exit 1), not a usage
 * error, whatever the module that reads it would say. */
int gus_check_readable(const char *opt, const char *path);

/* Flushes standard output or standard error (STREAM) and says once, on
 * standard error, "gus: standard output: No space left on device" when a
 * write to it failed: 0, or -1 then. gus's main does the same for standard
 * output as the last thing, so that no command's write error passes. */
int gus_flush_std(FILE *stream);
/* "gus: unknown option '-q'", the command list, exit status 2. */
int gus_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gus_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gus_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
