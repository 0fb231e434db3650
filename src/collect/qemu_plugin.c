/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus's TCG plugin for qemu-x86_64: streams the executed instructions of
 * the traced ranges, with the data address of every access, to gus over
 * the pipe inherited as fd=N (qemu_wire.h describes the stream).
 *
 * Arguments (-plugin file=gus-qemu-plugin.so,fd=N,...):
 *   fd=N            the pipe's write end; never stdout/stderr, which belong
 *                   to the program
 *   sock=PATH       gus's Unix socket ("@NAME": in the abstract namespace):
 *                   forked children connect to it (and
 *                   so does this instance when it has no fd=, as a program
 *                   exec'd through gus-qemu-exec.so does); without it
 *                   forked children write nothing. fd= or sock= is required.
 *   ranges=S-E:...  hex link-time address ranges [S,E) of the program;
 *                   absent (and no obj=): all code
 *   obj=DEV:INO:S-E:...  a traced object: the file of that device and
 *                   inode (hex), and hex FILE OFFSET ranges [S,E) in it;
 *                   one obj= per object, numbered from 0 in order. Its
 *                   mappings are found as QEMU loads the program (path and
 *                   start_code, read against the file's program headers)
 *                   and at every guest mmap with PROT_EXEC of an fd (fstat
 *                   at the call, the result at its return); each becomes
 *                   runtime ranges and a MAP message. Instead of ranges=.
 *   xlo=A           hex link-time address of the program's lowest
 *                   executable segment: QEMU's start_code minus it is the
 *                   load bias that relocates the ranges (QEMU's entry_code
 *                   is the dynamic loader's entry for dynamic programs, so
 *                   it cannot serve)
 *   mem=on|off      data addresses (default on)
 *   counts=on|off   execution counts of all translated blocks (default off)
 *   max=N           stop emitting after about N records (gus cuts exactly)
 *   win=W,wins=K    emit windows of about W records of each thread's traced
 *                   code instead of all of it: K windows back to back, then
 *                   K at twice that stride, K at four times, ... (systematic
 *                   sampling that covers the whole run without knowing its
 *                   length), for each traced range apart; a WINDOW message
 *                   starts each
 *   gap=N           win=: a range's code is translated cheaply while its
 *                   next window is more than N records away (decimal, at
 *                   least 8192; 0: never cheap); without gap= the default
 *                   also wants that far to take a pace's worth of the
 *                   thread's CPU time at its pace so far, and as long since
 *                   the last switch to cheap code
 *   pace=NS         without gap=: that pace in nanoseconds (default 10 ms)
 *   bare=N          without gap=: where the next window is also 4 N records
 *                   away (or four times a millisecond at the range's pace,
 *                   if fewer), cheap code is a bare inline count, and a
 *                   watcher thread switches back N records (or that
 *                   millisecond) before the window
 *                   (default 4000000, where QEMU has async_run_on_cpu; 0:
 *                   cheap code keeps the execution callback, which switches
 *                   back exactly, as with gap=)
 *   pull=on|off     without gap=: the ranges' windows batched (default on;
 *                   see "Batches"); off: each where its schedule says
 *   dark=on|off     without gap=: where bare code would count, dark code
 *                   (default on; see "Dark code"); off: bare code
 *
 * Cost model: code outside the ranges gets at most two inline counter
 * increments per translated block (the block count, and a global
 * block-execution sequence number used only when ranges are given). A
 * translated block holding traced instructions gets one callback per
 * execution, plus one per memory access; its code is sent once, at
 * translation, and each execution is one 64-bit word.
 *
 * With win= most of a run is outside the windows, where that is mostly
 * waste: there a range's code is translated cheaply, with the execution
 * callback alone (no memory callbacks; untraced blocks get no sequence
 * number either when every range is cheap), and the callback's fast path
 * (exec_cb: the thread's place in its range moves on, nothing else; the
 * first thread's schedules are reached from the block without looking
 * the thread up) is a dozen instructions. QEMU 7.2's plugin API has no
 * conditional callback and no way to change a translated block's
 * instrumentation but qemu_plugin_reset, which flushes every translation
 * (the code that runs next is translated again: a millisecond or ten), so
 * a range switches to full translations when a thread comes within
 * ARM_RECORDS (> 512, a block's most instructions) of its next window:
 * the reset lands at the next block boundary, before the block that opens
 * the window, and the windows hold exactly what they would without the
 * switches. It switches back when the window after is far (gap=).
 *
 * The callback on every executed block is still most of a cheap run's
 * cost (python3's loop: 1.6 times plain QEMU with it, 1.25 with an inline
 * count alone; gzip -9, a plugin that adds nothing else to every block:
 * 1.4 times with an empty callback, 1.3 with one inline add, 1.02 with
 * nothing, so the bare count is about the least any counting costs), so
 * where the next window is also far (4 arm_margin: a millisecond of the
 * thread's time at the range's pace, 4 M records at most) cheap code is
 * bare, an inline add to the first thread's place in the range, and no
 * callback runs at all; the watcher thread reads the place every quarter
 * millisecond and, arm_margin records before the window, has the vCPU
 * itself ask for the reset (async_run_on_cpu, not part of the
 * plugin API: without it the callback stays). A window the reset reaches
 * late opens at the range's next full block (late_windows; the records
 * are otherwise the same). Only
 * while the process has one thread: a new thread's first block in a range
 * opens its first window, so a second thread makes every range full for
 * good (should its first blocks run before that reset lands, its first
 * window opens at its first full block). A block translated again keeps
 * its id and is not sent again (bdefs), unless a traced mapping changed.
 * Without the QEMU function that clears a vCPU's stale memory callbacks
 * (reset_done) the plugin does not switch.
 *
 * Batches. Each range has a schedule of its own, and every switch is a
 * flush of all translations, so five ranges switching apart cost five
 * times the flushes, and the full code kept around each. Without gap=
 * (and with pull=on), while the process has one thread, a switch to
 * full code for one range's window also opens the next window of every
 * other range already in that window's stratum (past where the window
 * before it was due to end: window J stands for the records from there
 * to where J is due), at the range's next block (pull_windows); and code
 * leaves its full translations only once no range's window is open or
 * near, in one flush for all (a pulled window whose range did not run
 * by then goes back to its own schedule). Each window still falls in its
 * own stratum and stands for what it stood for; only where in it moves
 * (trace.pulled_windows counts those). gzip -9's five ranges: 612 flushes
 * -> 260.
 *
 * Dark code. Even the bare count costs: one inline add on every block
 * (gzip -9: 1.3 times plain QEMU; nothing at all, 1.02). While the
 * process has one thread and the thread's pace through a range is known
 * (ns_per_record, from its last two windows), code that would be bare is
 * dark: translated with nothing, and the watcher reckons the range's
 * place from the first thread's CPU time (its clock, solo_clock) at that
 * pace (dark_place); the reset out of the dark sets the place to the
 * reckoning, and counting goes on from there. The pace is measured while
 * counted, and dark code runs faster, so the reckoning is behind: the
 * windows come later in the range's run than their schedule says, and
 * fewer (test_qemu: 36 of 41), each standing for what its schedule says
 * (the phases workload's whole: 29.1 cycles an iteration against 28.5
 * simulated completely, 30.4 counted throughout). A forked child reckons
 * from its own thread's clock, from the place where its parent went dark.
 *
 * Control flow at block boundaries. Inside a translated block instructions
 * run in sequence (QEMU ends a block at each control transfer), so only
 * the last traced instruction of an execution needs its outcome found:
 * - the block goes on outside the ranges: not taken, the next record is an
 *   entry (static);
 * - otherwise the next translated block this thread runs starts at the
 *   successor. If that block has traced instructions, its callback sees
 *   the successor directly. If not, the global sequence number shows that
 *   some other block ran in between, so control left the ranges; whether
 *   it left by falling through to the range end E is told by a callback on
 *   the blocks that start at each range end E.
 * The sequence number is a plain inline add shared by all threads (QEMU
 * 7.2 has no per-vCPU inline counters). With one guest thread it is exact.
 * Once a second thread exists it is disturbed by the other threads, so the
 * plugin then assumes that the thread's next traced block follows its
 * previous one directly: a call to code outside the ranges that returns to
 * the next instruction reads as not taken and without entry, a return to
 * an untraced caller that later calls back in lacks the entry flag.
 *
 * A block stopped midway by a fault delivered to the program (SIGSEGV and
 * the like) is recorded whole: its callback runs at its start, so the
 * instructions after the faulting one appear executed. A fault within
 * traced code is rare and is not worth a callback per instruction.
 *
 * Runtime ranges are appended under the lock and read by translation
 * callbacks of any thread without it: an entry is written, then the count
 * is published with a release store. A range that munmap or a new mapping
 * covers whole is emptied in place (its end set to its start), so that
 * what is mapped there later is not traced as the object.
 *
 * Threads: each guest thread (a host thread in qemu-user) fills its own
 * buffer with EXEC/MEM words and writes it as one CHUNK under a mutex.
 * Block definitions go to a shared buffer written before any chunk, so a
 * block is always defined before a chunk refers to it.
 *
 * Processes. Without sock= forked children inherit the plugin but write
 * nothing (their pid differs). With sock= a forked child drops what its
 * parent had buffered, and when it first has something to write it
 * connects to gus, sends HELLO and every BIAS, MAP and BLOCK message of
 * its parent (kept for this), then its own records; its threads are
 * numbered anew. The pipe is close-on-exec so that an exec'd program does
 * not hold it; an EXECVE message before the call tells gus that the
 * connection may close without END. */
#include "qemu_plugin_api.h"
#include "qemu_wire.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <dlfcn.h>
#include <time.h>

#include <Zydis/Zydis.h>

GUS_QEMU_PLUGIN_EXPORT int qemu_plugin_version = GUS_QEMU_PLUGIN_API_VERSION;

#define MAX_RANGES 64
#define MAX_OBJ_RANGES 4096	/* file-offset ranges of all objects */
#define MAX_RT_RANGES 16384	/* runtime ranges (link-time ones biased, mapped objects) */
#define TBUF_WORDS (1u << 15)	/* 256 KiB per thread: few, large writes */

struct range {
	uint64_t start, end;
};

struct block {
	uint64_t id;
	uint64_t tb_start;	/* the translated block's first instruction */
	uint64_t last_end;	/* end address of the last traced instruction */
	uint32_t n;		/* traced instructions */
	uint32_t tag;		/* the obj= range its first traced instruction is in */
	uint8_t starts_outside;	/* the translated block starts outside the ranges */
	uint8_t last_is_tb_end;	/* ... and ends with the last traced instruction */
	uint8_t full;		/* translated with its memory callbacks (not cheap) */
	struct win_state *solo_w;	/* win=: the first thread's schedule of range tag */
};

struct tbcount {
	uint64_t addr;
	uint64_t count;
	uint32_t ninsns;
};

/* win=: a thread's place in one range's windows, in records of the
 * range's blocks it executed (emitted or not) */
struct win_state {
	uint64_t pos, next, end;
	/* exec_cb's fast path: below this position nothing happens but the
	 * count (0: every block takes the slow path) */
	uint64_t quiet_until;
	/* the thread's CPU time and place when it last opened a window, and
	 * its pace through the range from the window before to that one (a
	 * window and a gap: a window alone, just after a reset, would hold
	 * the reset's cost) */
	uint64_t rate_ns, rate_pos;
	double ns_per_record;
	uint32_t index;
	bool open;
	bool demand;		/* a window is open or near: the range's code fully instrumented */
	bool pulled;		/* its next window opens early, in another range's switch (pull_windows) */
	/* dark code (the first thread): its place and the thread's CPU time
	 * when it went dark, from which the watcher reckons it */
	uint64_t dark_pos, dark_ns;
};

struct tstate {
	uint64_t *buf;
	unsigned vcpu;
	size_t len;
	uint32_t tid;
	bool valid;		/* a record was emitted (prev_* hold) */
	bool prev_tb_end;
	bool fell_out;		/* the previous record fell through to a range end */
	uint64_t prev_end, prev_seq;
	uint64_t cur_id;	/* the block of the last EXEC sent (its MEMs may follow) */
	uint64_t announced;	/* records announced since the last flush */
	/* win=: where this thread is in the schedule of each traced range */
	struct win_state *ws;
	size_t nws;
	struct tstate *next;
};

static int out_fd = -1;
static bool out_is_sock;
static pid_t owner_pid;	/* the process out_fd belongs to (0: none yet) */
static const char *sock_path;	/* sock=: where children connect */
static struct range ranges[MAX_RANGES];	/* ranges=, link-time */
static size_t nranges;

struct object {
	uint64_t dev, ino;
	size_t r0, nr;		/* its ranges: obj_ranges[r0 .. r0+nr) */
};
static struct object objects[QW_MAX_OBJECTS];
static size_t nobjects;
static struct range obj_ranges[MAX_OBJ_RANGES];	/* file offsets */
static size_t nobj_ranges;

/* the runtime ranges traced; rt_n is published with a release store */
static bool filtered;		/* ranges= or obj= given: not all code */
static struct range rt[MAX_RT_RANGES];
static uint32_t rt_tag[MAX_RT_RANGES];	/* the obj= range each came from (0 for ranges=) */
static size_t rt_n;

/* an mmap with PROT_EXEC of a traced object, between its entry and its
 * return, per vCPU */
struct pending_map {
	int obj1;		/* the object's index + 1; 0: none */
	int64_t num;		/* 9 (mmap), 11 (munmap), 0: none */
	uint64_t addr, len, off;
};
static bool mem_on = true, counts_on;
static uint64_t max_records, xlo;
static uint64_t win_len;		/* win=: records per window (0: no windows) */
static uint64_t win_per_level = 16;	/* wins=: windows per stride */
/* threads numbered in the order the process created them (vCPU init) */
static uint32_t vcpu_birth[1024];
static uint32_t nborn = 1;
static bool vcpu0_seen;
static bool have_xlo;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stopped;	/* max reached, a write failed, or a forked child */
static int dead;		/* writes failed: gus is gone */
static bool bias_done;
static uint64_t bias;
static uint64_t next_block_id;
static uint64_t announced_total;
static uint32_t nthreads;
static volatile int multi_thread;
static struct tstate *threads;

/* bumped inline by every translated block when ranges are given */
static uint64_t tb_seq;

static uint64_t *defs;		/* pending BLOCK/BIAS/MAP messages */
static size_t ndefs, capdefs;
static uint64_t *hist;		/* with sock=: every BIAS/MAP/BLOCK sent, for children */
static size_t nhist, caphist;
static bool own_blocks;		/* this process translated traced code (since its fork) */

/* win=: cheap translations outside the windows (see "Cost model"). A
 * range's code is translated fully (exec and memory callbacks, tb_seq on
 * every block) while its thread has a window open or near, else cheaply
 * (the exec callback alone, which counts); a change is a
 * qemu_plugin_reset, which flushes every translation. want_mode is what
 * the windows ask for, built_mode what the translations now hold. */
#define ARM_RECORDS 4096	/* >= 512, QEMU's most instructions in a block */
#define DEFAULT_CHEAP_GAP 65536
static qemu_plugin_id_t plugin_id;
static bool toggling;		/* win= (and not counts=): translations change with the windows */
static uint64_t cheap_gap = DEFAULT_CHEAP_GAP;	/* gap=: records to a range's next window */
static size_t ntags = 1;	/* window schedules per thread: obj= ranges, or 1 */
static pthread_mutex_t mode_lock = PTHREAD_MUTEX_INITIALIZER;
enum {
	MODE_CHEAP,	/* the execution callback alone: it switches back itself */
	MODE_FULL,	/* execution and memory callbacks */
	MODE_BARE,	/* an inline count alone: the watcher switches it back */
	MODE_DARK,	/* nothing: the watcher reckons the place from the time */
};
static uint8_t want_mode[MAX_OBJ_RANGES], built_mode[MAX_OBJ_RANGES];
static bool any_built_full = true;	/* untraced blocks then count tb_seq */
static int reset_pending;
static uint64_t nresets;
/* a range's code goes cheap when its next window is more than cheap_gap
 * records and, at the pace the thread went through the range, cheap_ns
 * of its CPU time away: a reset costs the translation of all the code
 * that runs next (half a millisecond for gzip, more for python3), each
 * way. 10 ms: with the windows batched, 1.5-2.5 times fewer CPU seconds
 * for the windows' cost than 100 ms (xz, gzip, python3; 5 and 20 ms within
 * the noise of 10) */
static uint64_t cheap_ns = 10000000;
static uint64_t last_switch_ns;	/* the thread's CPU time at the last reset asked for cheap code */
/* QEMU 7.2 leaves cpu->plugin_mem_cbs set after a block (mem_put), and a
 * reset frees what it points to: a later helper's access would read
 * freed memory. QEMU 8 clears it where reset_done does, with the same
 * function (exported by qemu-x86_64, not part of the plugin API); without
 * it there are no resets. */
static void (*disable_mem_helpers)(void *cpu);
static bool have_current_cpu;	/* QEMU's thread-local current_cpu (dlsym per thread) */
/* win=: the first thread's window schedules, one per range, which its
 * blocks point to (exec_cb's fast path: no lookup of the thread) */
static struct win_state *solo_ws;
static struct tstate *solo_ts;
static unsigned int solo_vcpu = UINT32_MAX;	/* its vCPU, while it owns solo_ws */

/* win= with a pace (cheap_ns), where a range's next window is also at
 * least 4 bare_arm records away: its code is bare, an inline count of the
 * first thread's place (no callback at all), and a watcher thread, which
 * looks at that place every WATCH_NS, has the vCPU make the range full
 * (async_run_on_cpu: the reset is asked for on the vCPU's own thread,
 * between two of its blocks) once the window is arm_margin records
 * away: ARM_NS of the thread's time at the range's pace, bare_arm at
 * most (2 ms at 2 records a nanosecond, faster than QEMU runs code); a
 * window the watcher reaches late opens late (one in a few hundred
 * here). Elsewhere, without QEMU's async_run_on_cpu, or with bare=0,
 * cheap code keeps its execution callback, which asks itself (exact, and
 * what gap= tests). */
#define WATCH_NS 250000
/* QEMU's async_run_on_cpu(CPUState *, run_on_cpu_func, run_on_cpu_data):
 * the data is a union of 8 bytes passed by value, in a register as a
 * uint64_t is (x86-64 SysV), and so is the function's */
static void (*async_run)(void *cpu, void (*fn)(void *cpu, uint64_t tag), uint64_t tag);
static uint64_t bare_arm = 4000000;	/* bare=: 0, no bare code */
/* the watcher switches a range back at the latest this much of the
 * thread's CPU time before its window (four of its looks), at the pace
 * the range went at while counted (bare code runs faster: earlier than
 * needed, never later) */
#define ARM_NS 1000000

/* how many records before its window range W's bare code is switched
 * back: bare_arm, or fewer where the range's pace makes ARM_NS fewer (a
 * range that takes a fifth of the thread's time gets a fifth of the
 * records in a millisecond); bare code only where its window is 4 times
 * that away */
static uint64_t arm_margin(const struct win_state *w)
{
	double p = w->ns_per_record;
	if (p > 0 && (double)ARM_NS / p < (double)bare_arm)
		return (uint64_t)((double)ARM_NS / p) + ARM_RECORDS;
	return bare_arm;
}

/* pull=: a switch to full code for one range's window opens the other
 * ranges' next windows too where they are already in their strata
 * (pull_windows); off: every window where its schedule says (the tests
 * that compare windows with a fully instrumented run) */
static bool pull_on = true;
/* dark=: where bare code would count, nothing at all (the place reckoned
 * from the thread's CPU time at the range's pace); off: bare code */
static bool dark_on = true;
static clockid_t solo_clock;	/* the first thread's CPU-time clock (dark code) */
static bool have_solo_clock;
static uint64_t dark_switches;	/* resets that made some range's code dark */
static uint64_t pulled_windows;	/* windows opened early in another range's switch */
/* the first thread's CPU time when the last batch asked for full code: a
 * window still open HOLD_NS after it (its range stopped running) holds
 * the others' full code no longer (shorter holds: more switches, gzip's
 * 225 -> 432 at 2 ms) */
static uint64_t batch_ns;
#define HOLD_NS 10000000
/* a range whose leave is held by the batch asks again this often (its
 * fast path stops there), so that a hold that ran out is seen */
#define LEAVE_RETRY_RECORDS 1000000
static bool inline_cheap;	/* bare code allowed (the watcher can arm it) */
static void *solo_cpu;		/* the first thread's CPUState (reset_done, on its thread) */
static bool watcher_running;
static volatile int watch_quit;
static uint8_t arm_asked[MAX_OBJ_RANGES];	/* the watcher asked for range tag's full code */
static uint64_t late_windows;	/* windows that opened after their start (the watcher late) */
static uint64_t bare_arms;	/* the watcher's switches back from bare code */

/* the first thread's CPU time, read from any thread (0: unknown) */
static uint64_t solo_ns(void)
{
	struct timespec t;
	if (!have_solo_clock || clock_gettime(solo_clock, &t))
		return 0;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* the place of range W, dark since dark_ns, at the first thread's CPU
 * time NOW: at its pace while counted (dark code runs faster, so the
 * reckoning is behind: its windows come later in the range's run than
 * their schedule says, each still where the reckoning puts it) */
static uint64_t dark_place(const struct win_state *w, uint64_t now)
{
	double p = w->ns_per_record;
	if (p <= 0 || now <= w->dark_ns)
		return w->dark_pos;
	double d = (double)(now - w->dark_ns) / p;
	return d < 1e18 ? w->dark_pos + (uint64_t)d : w->dark_pos;
}

/* caller holds mode_lock, on the first thread's vCPU: every dark range's
 * place brought up to the reckoning (and reckoned from here on) */
static void dark_catch_up(void)
{
	uint64_t now = solo_ns();
	if (!now || !solo_ws)
		return;
	for (size_t i = 0; i < ntags; i++)
		if (built_mode[i] == MODE_DARK) {
			struct win_state *w = &solo_ws[i];
			w->pos = dark_place(w, now);
			w->dark_pos = w->pos;
			w->dark_ns = now;
		}
}

/* the code a range leaves full or cheap code for, its next window GAP
 * records away: bare (or dark) where that is four watcher margins */
static uint8_t quiet_mode(const struct win_state *w, uint64_t gap)
{
	if (!inline_cheap || gap / 4 < arm_margin(w))
		return MODE_CHEAP;
	return dark_on && have_solo_clock && w->ns_per_record > 0 && !multi_thread ? MODE_DARK : MODE_BARE;
}

/* the blocks defined so far, by content: a block translated again (after
 * a reset, in the other mode) keeps its id and is not sent again; emptied
 * when a traced mapping changes */
struct bdef {
	uint64_t hash;
	uint64_t *msg;		/* the BLOCK message's words after the first */
	size_t nw;
	struct block *b[2];	/* cheap, full: same id */
};
static struct bdef *bdefs;
static size_t nbdefs, capbdefs;
static void bdefs_forget(void);

static struct tbcount **tbc_chunks;	/* stable addresses for inline counters */
static size_t ntbc, ntbc_chunks;
#define TBC_CHUNK 4096

/* Per-thread state by vCPU index (one vCPU per guest thread in qemu-user;
 * an index is reused only after its thread has exited), which is cheaper
 * than thread-local storage in a dlopen'ed object (__tls_get_addr on every
 * callback). Indexes beyond the table use thread-local storage. */
#define MAX_VCPUS 1024
static struct tstate *vcpu_ts[MAX_VCPUS];
static __thread struct tstate *tls_ts;
static __thread struct tstate *my_ts;	/* this thread's, whatever its vCPU (for fork) */
static struct pending_map vcpu_map[MAX_VCPUS];
static __thread struct pending_map tls_map;

static __attribute__((noinline)) struct tstate *ts_get_tls(void)
{
	return tls_ts;
}

static inline struct tstate *ts_get(unsigned int vcpu)
{
	return vcpu < MAX_VCPUS ? vcpu_ts[vcpu] : ts_get_tls();
}

/* a socket never raises SIGPIPE in the program when gus is gone */
static ssize_t out_write(const void *p, size_t n)
{
	return out_is_sock ? send(out_fd, p, n, MSG_NOSIGNAL) : write(out_fd, p, n);
}

static ssize_t out_writev(struct iovec *iov, int n)
{
	if (out_is_sock) {
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
		return sendmsg(out_fd, &mh, MSG_NOSIGNAL);
	}
	return writev(out_fd, iov, n);
}

static int write_all(const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = out_write(c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A connection of its own to sock=, for a forked child or an exec'd
 * program: HELLO, then what the parent had defined. -1 when gus cannot be
 * reached. */
static int connect_gus(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t len = strlen(sock_path);
	if (len >= sizeof(a.sun_path))
		return -1;
	/* "@NAME": NAME in the abstract namespace (the whole of sun_path,
	 * zero-padded, as gus binds it) */
	if (sock_path[0] == '@')
		memcpy(a.sun_path + 1, sock_path + 1, len - 1);
	else
		memcpy(a.sun_path, sock_path, len + 1);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	int rc;
	do
		rc = connect(s, (struct sockaddr *)&a, sizeof(a));
	while (rc < 0 && errno == EINTR);
	if (rc < 0) {
		close(s);
		return -1;
	}
	out_fd = s;
	out_is_sock = true;
	owner_pid = getpid();
	uint64_t hello[2] = { QW_HELLO | (uint64_t)QW_VERSION << 8, QW_MAGIC };
	if (write_all(hello, sizeof(hello)) || (nhist && write_all(hist, nhist * sizeof(*hist))))
		return -1;
	ndefs = 0;	/* the pending definitions were in the history */
	return 0;
}

/* caller holds lock: 0 when this process may write (a forked child or an
 * exec'd program connects first), else -1 and the plugin is dead */
static int conn_ready(void)
{
	if (dead)
		return -1;
	if (owner_pid && owner_pid == getpid())
		return 0;
	/* without sock= a forked child's output would mix with the parent's */
	if (!sock_path || connect_gus()) {
		dead = 1;
		stopped = 1;
		return -1;
	}
	return 0;
}

/* caller holds lock */
static int emit_raw(const uint64_t *w, size_t n)
{
	if (conn_ready())
		return -1;
	if (write_all(w, n * sizeof(*w))) {
		dead = 1;
		stopped = 1;
		return -1;
	}
	return 0;
}

static void defs_push(const uint64_t *w, size_t n)
{
	if (ndefs + n > capdefs) {
		size_t cap = capdefs ? capdefs * 2 : 4096;
		while (cap < ndefs + n)
			cap *= 2;
		uint64_t *d = realloc(defs, cap * sizeof(*d));
		if (!d) {
			stopped = 1;
			return;
		}
		defs = d;
		capdefs = cap;
	}
	memcpy(defs + ndefs, w, n * sizeof(*w));
	ndefs += n;
}

/* a definition (BIAS, MAP, BLOCK): also kept for forked children */
static void defs_push_def(const uint64_t *w, size_t n)
{
	defs_push(w, n);
	if (!sock_path)
		return;
	if (nhist + n > caphist) {
		size_t cap = caphist ? caphist * 2 : 4096;
		while (cap < nhist + n)
			cap *= 2;
		uint64_t *h = realloc(hist, cap * sizeof(*h));
		if (!h) {
			stopped = 1;
			return;
		}
		hist = h;
		caphist = cap;
	}
	memcpy(hist + nhist, w, n * sizeof(*w));
	nhist += n;
}

/* caller holds lock; a new connection sends them with the history */
static void defs_flush(void)
{
	if (ndefs && !conn_ready() && ndefs)
		emit_raw(defs, ndefs);
	ndefs = 0;
}

/* caller holds lock */
static void chunk_flush_locked(struct tstate *ts)
{
	defs_flush();
	if (ts->len) {
		uint64_t hdr[2] = { QW_CHUNK | (uint64_t)ts->tid << 8, ts->len };
		struct iovec iov[2] = {
			{ hdr, sizeof(hdr) },
			{ ts->buf, ts->len * sizeof(uint64_t) },
		};
		if (!conn_ready()) {
			size_t want = iov[0].iov_len + iov[1].iov_len;
			ssize_t w;
			do
				w = out_writev(iov, 2);
			while (w < 0 && errno == EINTR);
			/* a pipe may take a large write in pieces */
			if (w >= 0 && (size_t)w < want) {
				size_t done = (size_t)w;
				if (done < sizeof(hdr))
					w = write_all((char *)hdr + done, sizeof(hdr) - done) ? -1 : w;
				size_t dbody = done > sizeof(hdr) ? done - sizeof(hdr) : 0;
				if (w >= 0)
					w = write_all((char *)ts->buf + dbody, iov[1].iov_len - dbody) ? -1 : w;
			}
			if (w < 0) {
				dead = 1;
				stopped = 1;
			}
		} else {
			dead = 1;
			stopped = 1;
		}
	}
	ts->len = 0;
	announced_total += ts->announced;
	ts->announced = 0;
	if (max_records && announced_total >= max_records)
		stopped = 1;
}

static void chunk_flush(struct tstate *ts)
{
	pthread_mutex_lock(&lock);
	chunk_flush_locked(ts);
	pthread_mutex_unlock(&lock);
}

static struct tstate *tstate_new(unsigned int vcpu)
{
	struct tstate *ts = calloc(1, sizeof(*ts));
	if (ts) {
		ts->buf = malloc(TBUF_WORDS * sizeof(uint64_t));
		/* every range's schedule, so that the fast path never grows it */
		ts->nws = win_len ? ntags : 0;
		pthread_mutex_lock(&lock);
		bool solo = ts->nws && solo_ws && !solo_ts;
		if (solo)
			solo_ts = ts;
		pthread_mutex_unlock(&lock);
		ts->ws = solo ? solo_ws : ts->nws ? calloc(ts->nws, sizeof(*ts->ws)) : NULL;
		if (solo && ts->buf)
			__atomic_store_n(&solo_vcpu, vcpu, __ATOMIC_RELEASE);
	}
	if (!ts || !ts->buf || (ts->nws && !ts->ws)) {
		if (ts) {
			free(ts->buf);
			if (ts->ws != solo_ws)
				free(ts->ws);
		}
		free(ts);
		stopped = 1;
		return NULL;
	}
	pthread_mutex_lock(&lock);
	/* the thread's place in the order of creation, which the sample run
	 * can be matched by (nthreads: those that ran traced code) */
	ts->tid = vcpu < sizeof vcpu_birth / sizeof *vcpu_birth ? vcpu_birth[vcpu] : nborn++;
	nthreads++;
	ts->vcpu = vcpu;
	ts->cur_id = UINT64_MAX;
	ts->next = threads;
	threads = ts;
	pthread_mutex_unlock(&lock);
	if (vcpu < MAX_VCPUS)
		vcpu_ts[vcpu] = ts;
	else
		tls_ts = ts;
	my_ts = ts;
	return ts;
}

static inline void put(struct tstate *ts, uint64_t w)
{
	if (ts->len == TBUF_WORDS)
		chunk_flush(ts);
	ts->buf[ts->len++] = w;
}

/* win=: the first record of window J of a thread. Window J of level L =
 * J / K (K windows per level) starts at K*W*(2^L - 1) + (J mod K)*W*2^L:
 * level 0 is back to back, each level after it twice as sparse. */
static uint64_t window_start(uint32_t j)
{
	uint64_t level = j / win_per_level, i = j % win_per_level;
	if (level > 40)
		return UINT64_MAX;
	return win_per_level * win_len * ((1ull << level) - 1) + i * (win_len << level);
}

/* win=: whether a block of N records of TS's range TAG is emitted;
 * *OPENS: a window starts with it (*INDEX). Outside the windows only the
 * count moves. A block translated cheaply (MAY_OPEN false) has no memory
 * callbacks: a window due there opens at the range's next block instead
 * (later than its schedule says, which only a new thread or a reset that
 * came late can cause: see "Cost model"). */
static bool in_window(struct tstate *ts, uint32_t tag, uint64_t n, bool may_open, bool *opens,
		      uint32_t *index)
{
	*opens = false;
	if (tag >= ts->nws)
		return false;
	struct win_state *w = &ts->ws[tag];
	uint64_t pos = w->pos;
	w->pos += n;
	if (w->open && pos < w->end)
		return true;
	if (w->open) {
		/* the window is full: the next one may start right here */
		w->open = false;
		w->index++;
		w->next = window_start(w->index);
	}
	if (pos + n <= w->next || w->index > QW_MAX_WINDOW_INDEX || !may_open)
		return false;
	w->open = true;
	if (w->pulled) {
		/* opened early, where the switch it was pulled into landed */
		w->pulled = false;
		pulled_windows++;
	} else if (pos > w->next + 512)	/* further than a block (QEMU's most) overshoots */
		late_windows++;
	w->end = (pos > w->next ? pos : w->next) + win_len;
	*opens = true;
	*index = w->index;
	return true;
}

static void reset_done(qemu_plugin_id_t id);
static void unpull_windows(void);

/* the ranges' windows batched (pull_windows): with a pace, while the
 * process has its first thread alone */
static bool batching(void)
{
	return pull_on && cheap_ns && !multi_thread && solo_ts && solo_ws;
}
static uint64_t thread_ns(void);

/* win=: the translations of range TAG wanted in MODE; a change is made
 * by a reset, one at a time (reset_done takes what is wanted then).
 * Every thread but the first makes every range full for good: a thread's
 * first block in a range opens its first window, and only the first
 * thread's are known. */
static void mode_want(uint32_t tag, uint8_t mode)
{
	bool go = false;
	pthread_mutex_lock(&mode_lock);
	if (multi_thread)
		memset(want_mode, MODE_FULL, ntags);
	else if (tag < ntags)
		want_mode[tag] = mode;
	if (!reset_pending && !stopped) {
		/* batched (pull_windows): code leaves full translations when
		 * no range's window is open or near, in one reset; a window
		 * pulled in but not yet opened holds nothing up (it is given
		 * back to its own schedule) */
		bool batch = batching();
		bool urgent = false, differs = false, held = false;
		for (size_t i = 0; i < ntags; i++) {
			urgent |= want_mode[i] == MODE_FULL && built_mode[i] != MODE_FULL;
			differs |= want_mode[i] != built_mode[i];
			held |= want_mode[i] == MODE_FULL && !(batch && solo_ws[i].pulled);
		}
		if (batch && held && differs && !urgent && thread_ns() > batch_ns + HOLD_NS)
			held = false;	/* the batch ran out: a range stopped in its window */
		go = urgent || (differs && (!batch || !held));
		if (go && batch && !urgent)
			unpull_windows();
	}
	if (go)
		reset_pending = 1;
	pthread_mutex_unlock(&mode_lock);
	/* outside the lock: reset_done takes it under QEMU's plugin lock */
	if (go)
		qemu_plugin_reset(plugin_id, reset_done);
}

/* win=: after a slow-path block of TS's range TAG, whether the thread
 * needs the range's code fully translated (a window open, or due within
 * ARM_RECORDS; once asked for, kept until the next window is more than
 * cheap_gap away) and how far the fast path may take it: up to the point
 * where it must ask, or to the window's start. A window opens in the
 * block after the one that asked, at the earliest: the reset lands at the
 * next block boundary, and no block holds more than 512 records. */
static uint64_t thread_ns(void)
{
	struct timespec t;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t))
		return 0;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* whether the next GAP records of W's range will take the thread at least
 * cheap_ns, at its pace between its last two windows */
static bool gap_long(const struct win_state *w, uint64_t gap)
{
	return !cheap_ns || (double)gap * w->ns_per_record >= (double)cheap_ns;
}

/* whether a range may go cheap now: every range's switch is a reset, so
 * they are kept cheap_ns of the thread's CPU time apart */
static bool switch_due(void)
{
	if (!cheap_ns)
		return true;
	uint64_t now = thread_ns();
	if (now < last_switch_ns + cheap_ns)
		return false;
	last_switch_ns = now;
	return true;
}

/* The first thread's range LEADER needs full code for its next window:
 * the reset that makes it full also serves every other range whose place
 * is already in the stratum of its next window (window J stands for the
 * records from where window J-1 was due to end to where J is due), whose
 * window then opens at its next block instead of at its start. Each window still
 * falls in its own stratum, so what it stands for is unchanged, and the
 * ranges' windows come in batches, one reset pair each, instead of each
 * range's switching alone (five ranges: five times the resets). Caller
 * holds mode_lock; on the vCPU's thread (its blocks' callbacks, or the
 * watcher's request run there). */
static void pull_windows(uint32_t leader)
{
	if (!batching())
		return;
	batch_ns = thread_ns();
	dark_catch_up();
	for (uint32_t t = 0; t < ntags; t++) {
		struct win_state *w = &solo_ws[t];
		if (t == leader || w->open || w->demand || w->pulled || w->next == UINT64_MAX ||
		    w->index > QW_MAX_WINDOW_INDEX || w->next <= w->pos)
			continue;
		/* its stratum: past the end of the window before it (where
		 * that one was due), so that no stratum gets two */
		if (w->index && w->pos < window_start(w->index - 1) + win_len)
			continue;
		w->pulled = true;
		w->next = w->pos;
		w->demand = true;
		w->quiet_until = w->next + 1;
		want_mode[t] = MODE_FULL;
	}
}

/* caller holds mode_lock: the windows pulled into a switch that ends
 * before their ranges ran again go back to their own schedules (the
 * code leaves full translations with the others) */
static void unpull_windows(void)
{
	for (uint32_t t = 0; t < ntags; t++) {
		struct win_state *w = &solo_ws[t];
		if (!w->pulled)
			continue;
		w->pulled = false;
		w->next = window_start(w->index);
		w->demand = false;
		uint64_t gap = w->next > w->pos ? w->next - w->pos : 0;
		w->quiet_until = w->next > ARM_RECORDS ? w->next - ARM_RECORDS : 0;
		want_mode[t] = quiet_mode(w, gap);
	}
}

static void win_plan(struct tstate *ts, uint32_t tag, bool opens)
{
	if (tag >= ts->nws)
		return;
	struct win_state *w = &ts->ws[tag];
	if (opens && toggling && cheap_ns) {
		uint64_t now = thread_ns();
		if (w->rate_ns && now > w->rate_ns && w->pos > w->rate_pos)
			w->ns_per_record = (double)(now - w->rate_ns) / (double)(w->pos - w->rate_pos);
		w->rate_ns = now;
		w->rate_pos = w->pos;
	}
	bool never = w->next == UINT64_MAX || w->index > QW_MAX_WINDOW_INDEX;
	uint64_t gap = !never && w->next > w->pos ? w->next - w->pos : 0;
	/* without resets the windows are always near: the fast path then
	 * runs to each window's start */
	/* batched (pull_windows), the switches are a pair per batch of
	 * windows, each batch's leave as far from its next window as
	 * gap_long wants: not rate-limited further */
	bool batch = batching() && ts == solo_ts;
	bool need = w->open || (!never && (!toggling || (w->demand ? gap <= cheap_gap || !gap_long(w, gap) ||
											  (!batch && !switch_due())
								   : gap <= ARM_RECORDS)));
	if (need != w->demand) {
		w->demand = need;
		if (need && toggling && ts == solo_ts) {
			pthread_mutex_lock(&mode_lock);
			pull_windows(tag);
			pthread_mutex_unlock(&mode_lock);
		}
		/* a window far in records too: bare code, which the watcher
		 * switches back in time */
		if (toggling)
			mode_want(tag, need ? MODE_FULL
					    : quiet_mode(w, gap));
	} else if (!need && batch && toggling && tag < ntags &&
		   __atomic_load_n(&want_mode[tag], __ATOMIC_RELAXED) !=
			   __atomic_load_n(&built_mode[tag], __ATOMIC_RELAXED)) {
		/* its leave held by the batch (or a reset under way): asked
		 * again, the hold may have run out */
		mode_want(tag, __atomic_load_n(&want_mode[tag], __ATOMIC_RELAXED));
	}
	if (w->open)
		w->quiet_until = 0;
	else if (never)
		w->quiet_until = UINT64_MAX;
	else if (need)
		w->quiet_until = w->next + 1;
	else	/* gap > ARM_RECORDS here */
		w->quiet_until = w->next > ARM_RECORDS ? w->next - ARM_RECORDS : 0;
	/* a leave still held: the fast path stops again soon to ask */
	if (!need && !never && batch && toggling && tag < ntags &&
	    __atomic_load_n(&want_mode[tag], __ATOMIC_RELAXED) != __atomic_load_n(&built_mode[tag], __ATOMIC_RELAXED) &&
	    w->quiet_until > w->pos + LEAVE_RETRY_RECORDS)
		w->quiet_until = w->pos + LEAVE_RETRY_RECORDS;
}

/* the watcher's request, run by the first thread's vCPU between two of its
 * blocks: range TAG's code made full, its next window near */
static void arm_work(void *cpu, uint64_t tag)
{
	(void)cpu;
	if (tag < ntags && !stopped && !multi_thread) {
		struct win_state *w = &solo_ws[tag];
		w->demand = true;
		w->quiet_until = w->next == UINT64_MAX ? UINT64_MAX : w->next + 1;
		pthread_mutex_lock(&mode_lock);
		pull_windows((uint32_t)tag);
		pthread_mutex_unlock(&mode_lock);
		mode_want((uint32_t)tag, MODE_FULL);
	}
	pthread_mutex_lock(&mode_lock);
	if (tag < ntags && (built_mode[tag] == MODE_BARE || built_mode[tag] == MODE_DARK) &&
	    want_mode[tag] == built_mode[tag])
		arm_asked[tag] = 0;	/* nothing came of it: ask again */
	pthread_mutex_unlock(&mode_lock);
}

/* The watcher thread: the first thread's place in each cheap range, read
 * every WATCH_NS; a range whose next window is near is made full. Late
 * (the thread went faster than its pace, or the watcher was not run), the
 * window opens at the range's first full block (late_windows counts it). */
static void *watch_main(void *arg)
{
	(void)arg;
	const struct timespec nap = { 0, WATCH_NS };
	while (!__atomic_load_n(&watch_quit, __ATOMIC_RELAXED)) {
		nanosleep(&nap, NULL);
		pthread_mutex_lock(&mode_lock);
		void *cpu = solo_cpu;
		uint64_t now = 0;
		if (!stopped && !multi_thread && cpu && !reset_pending)
			for (size_t i = 0; i < ntags; i++) {
				bool dark = built_mode[i] == MODE_DARK;
				if ((built_mode[i] != MODE_BARE && !dark) || want_mode[i] != built_mode[i] || arm_asked[i])
					continue;
				const struct win_state *w = &solo_ws[i];
				uint64_t next = __atomic_load_n(&w->next, __ATOMIC_RELAXED);
				uint64_t pos = __atomic_load_n(&w->pos, __ATOMIC_RELAXED);
				if (dark) {
					/* the reckoning (dark_* change only at resets and
					 * on the vCPU's requests, with mode_lock held) */
					if (!now && !(now = solo_ns()))
						continue;
					pos = dark_place(w, now);
				}
				if (next == UINT64_MAX)
					continue;
				if (next > pos && next - pos > arm_margin(w))
					continue;
				arm_asked[i] = 1;
				bare_arms++;
				async_run(cpu, arm_work, i);
			}
		pthread_mutex_unlock(&mode_lock);
	}
	return NULL;
}

/* caller holds mode_lock: the watcher started, if cheap code needs it; it
 * blocks every signal (they are the program's, QEMU's handlers expect a
 * vCPU thread) */
static void watch_start(void)
{
	if (!inline_cheap || watcher_running || stopped || watch_quit)
		return;
	bool any_cheap = false;
	for (size_t i = 0; i < ntags; i++)
		any_cheap |= built_mode[i] == MODE_BARE || built_mode[i] == MODE_DARK;
	if (!any_cheap)
		return;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 * 1024);
	if (!pthread_create(&t, &at, watch_main, NULL))
		watcher_running = true;
	else	/* no watcher: cheap code would never come back */
		memset(want_mode, MODE_FULL, ntags);
	pthread_attr_destroy(&at);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* a block with traced instructions, at each execution (out of line: the
 * fast path saves no registers) */
static __attribute__((noinline)) void exec_slow(unsigned int vcpu, struct tstate *ts, const struct block *b)
{
	if (stopped)
		return;
	if (!ts && !(ts = tstate_new(vcpu)))
		return;
	unsigned x = 0;
	if (win_len) {
		bool opens;
		uint32_t index = 0;
		bool in = in_window(ts, b->tag, b->n, b->full || !toggling, &opens, &index);
		win_plan(ts, b->tag, opens);
		if (!in) {
			/* the next emitted record follows a stretch not sent */
			ts->valid = false;
			ts->cur_id = UINT64_MAX;
			return;
		}
		if (opens)
			put(ts, QW_WINDOW | (uint64_t)b->tag << 8 | (uint64_t)index << 32);
	}
	uint64_t seq = tb_seq;
	if (!ts->valid) {
		/* the stream resumes here: after code outside the ranges, or
		 * after the gap between two windows */
		if (filtered || win_len)
			x |= QW_X_ENTRY;
	} else if (ts->fell_out || !ts->prev_tb_end) {
		x |= QW_X_ENTRY;
	} else if (!filtered || seq == ts->prev_seq + 1 || multi_thread) {
		if (b->tb_start != ts->prev_end)
			x |= QW_X_PREV_TAKEN;
		if (b->starts_outside)
			x |= QW_X_ENTRY;
	} else {
		x |= QW_X_PREV_TAKEN | QW_X_ENTRY;
	}
	put(ts, QW_EXEC | (uint64_t)x << 4 | b->id << 8);
	ts->cur_id = b->id;
	ts->valid = true;
	ts->fell_out = false;
	ts->prev_tb_end = b->last_is_tb_end;
	ts->prev_end = b->last_end;
	ts->prev_seq = seq;
	ts->announced += b->n;
	if (max_records && ts->announced >= max_records)
		chunk_flush(ts);
}

/* The fast path is what most executions take with win=: outside the
 * windows and away from the next, the thread's place moves on and
 * nothing else happens (a few loads and stores: the callback's cost is
 * most of the tracer's, run per block executed). */
static __attribute__((noinline)) void exec_other(unsigned int vcpu, const struct block *b)
{
	struct tstate *ts = ts_get(vcpu);
	/* a thread's ws holds every range's (tstate_new) */
	if (ts && win_len) {
		struct win_state *w = &ts->ws[b->tag];
		uint64_t np = w->pos + b->n;
		if (np < w->quiet_until) {
			w->pos = np;
			ts->valid = false;
			return;
		}
	}
	exec_slow(vcpu, ts, b);
}

static void exec_cb(unsigned int vcpu, void *ud)
{
	const struct block *b = ud;
	if (vcpu == __atomic_load_n(&solo_vcpu, __ATOMIC_RELAXED)) {
		/* the first thread (most programs' only one) */
		struct win_state *w = b->solo_w;
		uint64_t np = w->pos + b->n;
		if (__builtin_expect(np < w->quiet_until, 1)) {
			w->pos = np;
			solo_ts->valid = false;
			return;
		}
		exec_slow(vcpu, solo_ts, b);
		return;
	}
	exec_other(vcpu, b);
}

static __attribute__((noinline)) void mem_put(struct tstate *ts, qemu_plugin_meminfo_t info,
					      uint64_t vaddr, void *ud)
{
	uint64_t u = (uint64_t)(uintptr_t)ud;
	/* QEMU 7.2 keeps the callbacks of the last instruction that called a
	 * helper with memory callbacks (cpu->plugin_mem_cbs) after its block
	 * ends, and calls them for the helpers' accesses of other blocks,
	 * untraced ones too: only the accesses of the block just sent count */
	if (u >> 9 != ts->cur_id)
		return;
	uint64_t w = QW_MEM | (qemu_plugin_mem_is_store(info) ? 1u << 4 : 0) |
		     (uint64_t)(qemu_plugin_mem_size_shift(info) & 3) << 5 |
		     (u & 0x1ff) << 7 | (vaddr & QW_MEM_ADDR_MASK) << 16;
	put(ts, w);
}

static __attribute__((noinline)) void mem_other(unsigned int vcpu, qemu_plugin_meminfo_t info,
						uint64_t vaddr, void *ud)
{
	struct tstate *ts = ts_get(vcpu);
	if (stopped || !ts || (win_len && !ts->valid))
		return;
	mem_put(ts, info, vaddr, ud);
}

/* outside the windows (win=) a return, without saving a register */
static void mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
	if (vcpu != __atomic_load_n(&solo_vcpu, __ATOMIC_RELAXED)) {
		mem_other(vcpu, info, vaddr, ud);
		return;
	}
	/* the first thread: win= is given */
	struct tstate *ts = solo_ts;
	if (stopped || !ts->valid)
		return;
	mem_put(ts, info, vaddr, ud);
}

/* a block starting at a range end E, with nothing traced in it */
static void mark_cb(unsigned int vcpu, void *ud)
{
	struct tstate *ts = ts_get(vcpu);
	if (!ts || !ts->valid || ts->fell_out || !ts->prev_tb_end)
		return;
	uint64_t e = (uint64_t)(uintptr_t)ud;
	if (ts->prev_end == e && (tb_seq == ts->prev_seq + 1 || multi_thread))
		ts->fell_out = true;
}

static bool in_ranges(uint64_t a)
{
	if (!filtered)
		return true;
	size_t n = __atomic_load_n(&rt_n, __ATOMIC_ACQUIRE);
	for (size_t i = 0; i < n; i++)
		if (a >= rt[i].start && a < __atomic_load_n(&rt[i].end, __ATOMIC_RELAXED))
			return true;
	return false;
}

/* the obj= range holding A (0 for ranges= and all code) */
static uint32_t range_tag(uint64_t a)
{
	size_t n = __atomic_load_n(&rt_n, __ATOMIC_ACQUIRE);
	for (size_t i = 0; i < n; i++)
		if (a >= rt[i].start && a < __atomic_load_n(&rt[i].end, __ATOMIC_RELAXED))
			return rt_tag[i];
	return 0;
}

static bool is_range_end(uint64_t a)
{
	size_t n = __atomic_load_n(&rt_n, __ATOMIC_ACQUIRE);
	for (size_t i = 0; i < n; i++) {
		uint64_t e = __atomic_load_n(&rt[i].end, __ATOMIC_RELAXED);
		if (a == e && e > rt[i].start)
			return !in_ranges(a);
	}
	return false;
}

/* caller holds lock: the ranges inside [LO, HI) end (an unmapping, or a
 * mapping over them); emptied in place, as readers scan without the lock.
 * A range only partly inside stays. */
static void rt_cut(uint64_t lo, uint64_t hi)
{
	bool cut = false;
	for (size_t i = 0; i < rt_n; i++)
		if (rt[i].start >= lo && rt[i].end <= hi && rt[i].start < rt[i].end) {
			__atomic_store_n(&rt[i].end, rt[i].start, __ATOMIC_RELEASE);
			cut = true;
		}
	if (cut)
		bdefs_forget();
}

/* caller holds lock: appends a runtime range, published to the readers */
static void rt_add(uint64_t start, uint64_t end, uint32_t tag)
{
	if (rt_n == MAX_RT_RANGES || end <= start)
		return;
	rt[rt_n] = (struct range){ start, end };
	rt_tag[rt_n] = tag;
	__atomic_store_n(&rt_n, rt_n + 1, __ATOMIC_RELEASE);
}

#define PAGE_DOWN(x) ((x) & ~0xfffull)
#define PAGE_UP(x) (((x) + 0xfff) & ~0xfffull)

/* caller holds lock: object OBJ mapped at START from file offset OFF for
 * LEN bytes, of which the file offsets [CLO, CHI) are its content (the
 * rest of a segment's last page may be another segment's bytes) */
static void map_object(size_t obj, uint64_t start, uint64_t len, uint64_t off, uint64_t clo,
		       uint64_t chi)
{
	const struct object *o = &objects[obj];
	for (size_t i = o->r0; i < o->r0 + o->nr; i++) {
		uint64_t lo = obj_ranges[i].start > clo ? obj_ranges[i].start : clo;
		uint64_t hi = obj_ranges[i].end < chi ? obj_ranges[i].end : chi;
		if (lo < hi)
			rt_add(start + (lo - off), start + (hi - off), (uint32_t)i);
	}
	uint64_t m[4] = { QW_MAP | (uint64_t)obj << 8, start, len, off };
	defs_push_def(m, 4);
	bdefs_forget();
}

static int find_object(uint64_t dev, uint64_t ino)
{
	for (size_t i = 0; i < nobjects; i++)
		if (objects[i].dev == dev && objects[i].ino == ino)
			return (int)i;
	return -1;
}

static uint64_t bias_from(uint64_t sc, uint64_t lo)
{
	uint64_t b = sc - lo;
	if (b & 0xfff)	/* QEMU may count from the page */
		b = (sc & ~0xfffull) - (lo & ~0xfffull);
	return b;
}

/* caller holds lock: the binary QEMU loaded (PATH, its lowest executable
 * segment at SC). Without xlo= the bias comes from the file's own lowest
 * executable PT_LOAD; when the file is a traced object, each executable
 * PT_LOAD, relocated, is one of its mappings. */
static void main_binary(const char *path, uint64_t sc)
{
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	struct stat sb;
	Elf64_Ehdr eh;
	if (fd < 0)
		return;
	if (fstat(fd, &sb) || pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 4096) {
		close(fd);
		return;
	}
	int obj = find_object((uint64_t)sb.st_dev, (uint64_t)sb.st_ino);
	uint64_t lo = UINT64_MAX;
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph))
				break;
			if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
				continue;
			if (pass == 0) {
				if (ph.p_vaddr < lo)
					lo = ph.p_vaddr;
			} else if (obj >= 0 && ph.p_filesz) {
				uint64_t a = PAGE_DOWN(ph.p_vaddr + bias);
				uint64_t e = PAGE_UP(ph.p_vaddr + bias + ph.p_filesz);
				map_object((size_t)obj, a, e - a, PAGE_DOWN(ph.p_offset), ph.p_offset,
					   ph.p_offset + ph.p_filesz);
			}
		}
		if (pass == 0 && !have_xlo && lo != UINT64_MAX)
			bias = bias_from(sc, lo);
	}
	close(fd);
}

/* caller holds lock; from the first translation on, the image is loaded */
static void bias_init(void)
{
	if (bias_done)
		return;
	bias_done = true;
	uint64_t sc = qemu_plugin_start_code();
	if (have_xlo)
		bias = bias_from(sc, xlo);
	for (size_t i = 0; i < nranges; i++)
		rt_add(ranges[i].start + bias, ranges[i].end + bias, 0);
	if (nobjects) {
		char *path = (char *)qemu_plugin_path_to_binary();
		main_binary(path, sc);
		free(path);
	}
	uint64_t m[2] = { QW_BIAS, bias };
	defs_push_def(m, 2);
}

static struct tbcount *tbcount_new(void)
{
	if (ntbc == ntbc_chunks * TBC_CHUNK) {
		struct tbcount **c = realloc(tbc_chunks, (ntbc_chunks + 1) * sizeof(*c));
		if (!c)
			return NULL;
		tbc_chunks = c;
		if (!(c[ntbc_chunks] = calloc(TBC_CHUNK, sizeof(struct tbcount))))
			return NULL;
		ntbc_chunks++;
	}
	struct tbcount *t = &tbc_chunks[ntbc / TBC_CHUNK][ntbc % TBC_CHUNK];
	ntbc++;
	return t;
}

/* the length of the x86-64 instruction that starts the LEN bytes at DATA
 * (0: they hold no whole instruction) */
static size_t insn_len(const void *data, size_t len)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction in;
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, data, len, &in)))
		return 0;
	return in.length <= len ? in.length : 0;
}

/* up to LEN (at most 16) bytes of the guest's code at HADDR, the host
 * address of guest address VA, into BUF; returns how many were read (the
 * bytes of the first page, and the next page's as long as it is mapped).
 * The guest's image is read where QEMU maps it, with process_vm_readv on
 * this process so that an unmapped page is a short read, never a fault;
 * through /proc/self/mem where that call is refused. */
static size_t guest_read(const void *haddr, uint64_t va, uint8_t *buf, size_t len)
{
	if (!haddr || len > 16)
		return 0;
	size_t n1 = 0x1000 - (va & 0xfff);	/* the bytes left in VA's page */
	if (n1 > len)
		n1 = len;
	struct iovec local = { buf, len };
	struct iovec remote[2] = { { (void *)haddr, n1 },
				   { (void *)((uintptr_t)haddr + n1), len - n1 } };
	ssize_t got = process_vm_readv(getpid(), &local, 1, remote, len > n1 ? 2 : 1, 0);
	if (got >= 0)
		return (size_t)got <= len ? (size_t)got : 0;
	int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t done = 0;
	ssize_t r = pread(fd, buf, n1, (off_t)(uintptr_t)haddr);
	if (r == (ssize_t)n1) {
		done = n1;
		if (len > n1 && (r = pread(fd, buf + n1, len - n1, (off_t)((uintptr_t)haddr + n1))) > 0)
			done += (size_t)r <= len - n1 ? (size_t)r : 0;
	}
	close(fd);
	return done;
}

/* The bytes of instruction IN into OUT: what QEMU gave, or the whole
 * instruction where QEMU gave only the bytes it fetched before a page
 * boundary. QEMU 7.2's x86 translator keeps a block's instructions after
 * its first inside the first one's page: it fetches an instruction that
 * crosses into the next page up to the fetch that would cross (a prefix
 * and opcode, or "44 8b 8c 87" of a load whose disp32 crosses: the bytes
 * stop at the page boundary or up to 7 before it), then ends the block
 * before that instruction, which runs whole as the next block's first;
 * the plugin was told of it already, with those bytes. Any instruction
 * whose bytes stop short within 15 of a page's end is completed from the
 * guest's memory (the first page's bytes checked against QEMU's); *CUT is
 * set when QEMU's bytes were short of an instruction that crosses the page,
 * or, where the memory cannot be read, when they are not one whole
 * instruction and stop where such a fetch would. Returns the length (QEMU's
 * own, where no whole instruction longer than it was found). */
static size_t insn_bytes(const struct qemu_plugin_insn *in, uint8_t out[16], bool *cut)
{
	uint64_t va = qemu_plugin_insn_vaddr(in);
	size_t sz = qemu_plugin_insn_size(in);
	const uint8_t *data = qemu_plugin_insn_data(in);
	uint64_t page_end = PAGE_DOWN(va) + 0x1000;
	*cut = false;
	if (sz > 16)
		sz = 16;
	memset(out, 0, 16);
	if (sz && data)
		memcpy(out, data, sz);
	else
		sz = 0;
	/* whole by QEMU's bytes, or no room for an instruction to cross */
	if (sz >= 15 || va + sz > page_end || page_end - va >= 15 || (sz && insn_len(out, sz) == sz))
		return sz;
	uint8_t mem[16];
	size_t got = guest_read(qemu_plugin_insn_haddr(in), va, mem, 15);
	if (got > sz && !memcmp(mem, out, sz)) {
		size_t len = insn_len(mem, got);
		if (len > sz && va + len > page_end) {
			*cut = true;
			memcpy(out, mem, len);
			return len;
		}
		return sz;
	}
	*cut = page_end - (va + sz) < 8;
	return sz;
}

static uint64_t bdef_hash(const struct block *b, const uint64_t *msg, size_t nw)
{
	uint64_t h = 0xcbf29ce484222325ull ^ b->tb_start ^ (uint64_t)b->tag << 32 ^
		     (uint64_t)(b->starts_outside | b->last_is_tb_end << 1) << 60;
	for (size_t i = 0; i < nw; i++)
		h = (h ^ msg[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

static bool bdef_same(const struct bdef *e, uint64_t h, const struct block *b, const uint64_t *msg,
		      size_t nw)
{
	const struct block *o = e->b[0] ? e->b[0] : e->b[1];
	return e->hash == h && e->nw == nw && o->tb_start == b->tb_start && o->tag == b->tag &&
	       o->starts_outside == b->starts_outside && o->last_is_tb_end == b->last_is_tb_end &&
	       !memcmp(e->msg, msg, nw * sizeof(*msg));
}

/* caller holds lock: a traced mapping changed, so the same bytes at the
 * same address may be another object's */
static void bdefs_forget(void)
{
	for (size_t i = 0; i < capbdefs; i++)
		free(bdefs[i].msg);
	free(bdefs);
	bdefs = NULL;
	nbdefs = capbdefs = 0;
}

/* caller holds lock: the struct block for B's content in B's mode (B is
 * used, or freed), defining the block (BLOCK message MSG of W words, id
 * filled in) the first time that content is seen; NULL when out of memory */
static struct block *block_define(struct block *b, uint64_t *msg, size_t w)
{
	if (!toggling) {
		/* every translation is defined anew: without resets a block is
		 * translated again only after QEMU's own flush */
		b->id = next_block_id++;
		msg[0] = QW_BLOCK | (uint64_t)b->n << 8 | b->id << 24;
		defs_push_def(msg, w);
		return b;
	}
	if (nbdefs * 2 >= capbdefs) {
		size_t cap = capbdefs ? capbdefs * 2 : 1024;
		struct bdef *t = calloc(cap, sizeof(*t));
		if (!t)
			return NULL;
		for (size_t i = 0; i < capbdefs; i++)
			if (bdefs[i].hash) {
				size_t s = (size_t)bdefs[i].hash & (cap - 1);
				while (t[s].hash)
					s = (s + 1) & (cap - 1);
				t[s] = bdefs[i];
			}
		free(bdefs);
		bdefs = t;
		capbdefs = cap;
	}
	uint64_t h = bdef_hash(b, msg + 1, w - 1);
	size_t s = (size_t)h & (capbdefs - 1);
	while (bdefs[s].hash && !bdef_same(&bdefs[s], h, b, msg + 1, w - 1))
		s = (s + 1) & (capbdefs - 1);
	struct bdef *e = &bdefs[s];
	if (e->hash) {
		const struct block *o = e->b[0] ? e->b[0] : e->b[1];
		struct block *have = e->b[b->full];
		if (have) {
			free(b);
			return have;
		}
		b->id = o->id;
		e->b[b->full] = b;
		return b;
	}
	uint64_t *copy = malloc((w - 1) * sizeof(*copy));
	if (!copy)
		return NULL;
	memcpy(copy, msg + 1, (w - 1) * sizeof(*copy));
	b->id = next_block_id++;
	msg[0] = QW_BLOCK | (uint64_t)b->n << 8 | b->id << 24;
	defs_push_def(msg, w);
	*e = (struct bdef){ .hash = h, .msg = copy, .nw = w - 1 };
	e->b[b->full] = b;
	nbdefs++;
	return b;
}

static void trans_cb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t start = qemu_plugin_tb_vaddr(tb);
	/* the last of two or more instructions, cut at a page boundary: QEMU
	 * ended the block before it, and it runs as the next block's first
	 * (sent here, it would be sent twice per execution, once cut) */
	if (n > 1) {
		uint8_t bytes[16];
		bool cut;
		insn_bytes(qemu_plugin_tb_get_insn(tb, n - 1), bytes, &cut);
		if (cut)
			n--;
	}
	pthread_mutex_lock(&lock);
	bias_init();
	if (counts_on) {
		struct tbcount *c = tbcount_new();
		if (c) {
			c->addr = start;
			c->ninsns = (uint32_t)n;
			qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
								 &c->count, 1);
		}
	}
	pthread_mutex_unlock(&lock);
	/* the block sequence tells a direct successor from a return out of
	 * untraced code: needed while some range's windows may be open (the
	 * modes change only at resets, which flush every translation) */
	bool seq_on = filtered && (!toggling || any_built_full);
	if (seq_on)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &tb_seq, 1);
	if (stopped || n == 0)
		return;

	size_t k = 0, first = n, last = 0;
	for (size_t i = 0; i < n; i++)
		if (in_ranges(qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i)))) {
			k++;
			if (first == n)
				first = i;
			last = i;
		}
	if (k == 0) {
		if (seq_on && is_range_end(start))
			qemu_plugin_register_vcpu_tb_exec_cb(tb, mark_cb, QEMU_PLUGIN_CB_NO_REGS,
							     (void *)(uintptr_t)start);
		return;
	}

	struct block *b = calloc(1, sizeof(*b));
	uint64_t *msg = malloc((1 + k * QW_INSN_WORDS) * sizeof(uint64_t));
	if (!b || !msg) {
		free(b);
		free(msg);
		stopped = 1;
		return;
	}
	b->tag = range_tag(qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, first)));
	/* cheap: the exec callback alone, which counts the thread's place */
	b->full = !toggling || (b->tag < ntags && built_mode[b->tag] == MODE_FULL);
	b->solo_w = solo_ws && b->tag < ntags ? &solo_ws[b->tag] : NULL;
	size_t w = 1;
	for (size_t i = first; i <= last; i++) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(in);
		if (!in_ranges(va))
			continue;
		uint8_t bytes[16];
		bool cut;
		size_t sz = insn_bytes(in, bytes, &cut);
		unsigned sflags = 0;
		if (i + 1 < n && !in_ranges(qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i + 1))))
			sflags |= QW_S_FALL_OUT;
		msg[w++] = va;
		msg[w++] = sz | sflags << 8;
		memcpy(&msg[w], bytes, 16);
		w += 2;
		b->last_end = va + sz;
	}
	b->n = (uint32_t)k;
	b->tb_start = start;
	b->starts_outside = first > 0;
	b->last_is_tb_end = last == n - 1;

	pthread_mutex_lock(&lock);
	struct block *def = block_define(b, msg, w);
	if (def)
		own_blocks = true;
	pthread_mutex_unlock(&lock);
	free(msg);
	if (!def) {
		free(b);
		stopped = 1;
		return;
	}
	if (!def->full && def->solo_w && def->tag < ntags && built_mode[def->tag] == MODE_DARK)
		return;	/* dark: the watcher reckons the place */
	if (!def->full && def->solo_w && def->tag < ntags && built_mode[def->tag] == MODE_BARE) {
		/* bare: the first thread's place moves on, nothing else (the
		 * watcher arms the windows) */
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &def->solo_w->pos,
							 def->n);
		return;
	}
	/* one callback for both kinds: QEMU 7.2 stops at the first
	 * registered memory callback whose kind does not match. Each knows
	 * its block (mem_put) and its instruction's place in it. */
	if (mem_on && def->full)
		for (size_t i = first, j = 0; i <= last; i++) {
			struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
			if (!in_ranges(qemu_plugin_insn_vaddr(in)))
				continue;
			qemu_plugin_register_vcpu_mem_cb(in, mem_cb, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW,
							 (void *)(uintptr_t)(def->id << 9 | j));
			j++;
		}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_cb, QEMU_PLUGIN_CB_NO_REGS, def);
}

static inline struct pending_map *pm_get(unsigned int vcpu)
{
	return vcpu < MAX_VCPUS ? &vcpu_map[vcpu] : &tls_map;
}

/* QEMU 7.2 runs no plugin exit callback when a signal kills the program,
 * and none when it execs: what the thread buffered is written before the
 * system calls that may end it that way (a signal the program raises
 * itself; a fault or a signal from outside still loses the buffer).
 * mmap of a traced object with PROT_EXEC: the file is known here (qemu-user
 * passes the guest's fds through to the host), the address at the return. */
static void syscall_cb(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
		       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
		       uint64_t a7, uint64_t a8)
{
	(void)id, (void)a1, (void)a7, (void)a8;
	if ((num == 9 || num == 11) && nobjects) {
		/* mmap(addr, len, prot, flags, fd, off), munmap(addr, len) */
		struct pending_map *pm = pm_get(vcpu);
		struct stat sb;
		int obj;
		pm->obj1 = 0;
		pm->num = num;
		pm->addr = a1;
		pm->len = a2;
		if (num == 9 && (a3 & 4 /* PROT_EXEC */) && !(a4 & 0x20 /* MAP_ANONYMOUS */) &&
		    (int)a5 >= 0 && !fstat((int)a5, &sb) &&
		    (obj = find_object((uint64_t)sb.st_dev, (uint64_t)sb.st_ino)) >= 0) {
			pm->obj1 = obj + 1;
			pm->off = a6;
		}
		return;
	}
	switch (num) {
	case 59:	/* execve */
	case 60:	/* exit (a thread) */
	case 62:	/* kill */
	case 129:	/* rt_sigqueueinfo */
	case 200:	/* tkill */
	case 234:	/* tgkill */
	case 297:	/* rt_tgsigqueueinfo */
	case 322:	/* execveat */
		if (ts_get(vcpu))
			chunk_flush(ts_get(vcpu));
		else {
			pthread_mutex_lock(&lock);
			defs_flush();
			pthread_mutex_unlock(&lock);
		}
		if (num == 59 || num == 322) {
			/* the connection may close without END: not a crash. A
			 * child that never connected has nothing to say. */
			pthread_mutex_lock(&lock);
			if (!dead && owner_pid == getpid()) {
				uint64_t m[2] = { QW_EXECVE, 0 };
				emit_raw(m, 2);
			}
			pthread_mutex_unlock(&lock);
		}
		break;
	}
}

/* A new mapping ends the traced ranges it covers (they would trace what
 * replaced them), as does munmap; a traced object's becomes runtime
 * ranges. */
static void syscall_ret_cb(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
	(void)id;
	if (num != 9 && num != 11)
		return;
	struct pending_map *pm = pm_get(vcpu);
	if (pm->num != num)
		return;
	pm->num = 0;
	if ((uint64_t)ret >= (uint64_t)-4096 || !pm->len)	/* -errno */
		return;
	uint64_t at = num == 9 ? (uint64_t)ret : pm->addr, len = PAGE_UP(pm->len);
	pthread_mutex_lock(&lock);
	rt_cut(at, at + len);
	if (num == 9 && pm->obj1)
		map_object((size_t)(pm->obj1 - 1), at, len, pm->off, pm->off, pm->off + pm->len);
	pthread_mutex_unlock(&lock);
	pm->obj1 = 0;
}

static void vcpu_init_cb(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	if (vcpu > 0 && !multi_thread) {
		multi_thread = 1;
		/* every range full from now on (mode_want) */
		if (toggling)
			mode_want(0, MODE_FULL);
	}
	/* the first thread is 0 whether or not QEMU reports its vCPU to the
	 * plugin: the others count from 1 */
	pthread_mutex_lock(&lock);
	if (vcpu == 0 && !vcpu0_seen)
		vcpu0_seen = true;
	else if (vcpu < sizeof vcpu_birth / sizeof *vcpu_birth)
		vcpu_birth[vcpu] = nborn++;
	else
		nborn++;
	pthread_mutex_unlock(&lock);
	if (vcpu == __atomic_load_n(&solo_vcpu, __ATOMIC_RELAXED))
		/* the first thread has exited: its schedules are no other's */
		__atomic_store_n(&solo_vcpu, UINT32_MAX, __ATOMIC_RELAXED);
	if (vcpu < MAX_VCPUS && vcpu_ts[vcpu]) {
		/* a new thread on the index of one that exited */
		pthread_mutex_lock(&lock);
		chunk_flush_locked(vcpu_ts[vcpu]);
		vcpu_ts[vcpu] = NULL;
		pthread_mutex_unlock(&lock);
	}
}

struct cnt_ent {
	uint64_t addr, count;
	uint32_t ninsns;
	bool used;
};

/* Block counts aggregated by (address, instructions): a block translated
 * again (after a flush, or split differently) adds to the same entry. */
static void emit_counts(void)
{
	size_t cap = 1;
	while (cap < ntbc * 2)
		cap <<= 1;
	struct cnt_ent *h = calloc(cap, sizeof(*h));
	if (!h)
		return;
	for (size_t i = 0; i < ntbc; i++) {
		const struct tbcount *t = &tbc_chunks[i / TBC_CHUNK][i % TBC_CHUNK];
		if (!t->count)
			continue;
		uint64_t hv = (t->addr * 0x9e3779b97f4a7c15ull) ^ t->ninsns;
		size_t s = (size_t)(hv >> 20) & (cap - 1);
		while (h[s].used && !(h[s].addr == t->addr && h[s].ninsns == t->ninsns))
			s = (s + 1) & (cap - 1);
		h[s].used = true;
		h[s].addr = t->addr;
		h[s].ninsns = t->ninsns;
		h[s].count += t->count;
	}
	for (size_t s = 0; s < cap; s++)
		if (h[s].used) {
			uint64_t m[3] = { QW_COUNT | (uint64_t)h[s].ninsns << 8, h[s].addr, h[s].count };
			defs_push(m, 3);
		}
	free(h);
}

/* QEMU runs this with the other vCPUs stopped, so their buffers are
 * quiescent */
static void atexit_cb(qemu_plugin_id_t id, void *ud)
{
	(void)id;
	(void)ud;
	pthread_mutex_lock(&lock);
	if (sock_path && !dead && owner_pid != getpid() && !counts_on && !announced_total) {
		/* a forked child or an exec'd program that never connected
		 * and ran no traced code: nothing to say */
		bool any = own_blocks;
		for (struct tstate *ts = threads; ts; ts = ts->next)
			any |= ts->len != 0;
		if (!any) {
			stopped = 1;
			pthread_mutex_unlock(&lock);
			return;
		}
	}
	for (struct tstate *ts = threads; ts; ts = ts->next)
		chunk_flush_locked(ts);
	if (counts_on)
		emit_counts();
	__atomic_store_n(&watch_quit, 1, __ATOMIC_RELAXED);
	if (toggling) {
		uint64_t late = late_windows < 0xfffffff ? late_windows : 0xfffffff;
		uint64_t arms = bare_arms < 0x3fff ? bare_arms : 0x3fff;
		uint64_t darks = dark_switches < 0x3fff ? dark_switches : 0x3fff;
		uint64_t pulled = pulled_windows < 0xffffffff ? pulled_windows : 0xffffffff;
		uint64_t m[2] = { QW_RESETS | late << 8 | arms << 36 | darks << 50,
				  (nresets < 0xffffffff ? nresets : 0xffffffff) | pulled << 32 };
		defs_push(m, 2);
	}
	bool cut = max_records && announced_total >= max_records;
	uint64_t end[2] = { QW_END | (uint64_t)(cut ? QW_END_STOPPED : 0) << 8, announced_total };
	defs_push(end, 2);
	defs_flush();
	stopped = 1;
	pthread_mutex_unlock(&lock);
}

/* mode_lock too: the watcher holds it while it asks a vCPU for work */
static void fork_prepare(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_lock(&mode_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&mode_lock);
	pthread_mutex_unlock(&lock);
}

static void fork_child(void)
{
	/* the watcher stayed with the parent; the child's cheap code (its
	 * translations are the parent's) needs its own */
	watcher_running = false;
	for (size_t i = 0; i < ntags; i++)
		arm_asked[i] = 0;
	late_windows = 0;
	bare_arms = 0;
	pulled_windows = 0;
	dark_switches = 0;
	/* dark code reckoned from this thread's CPU time, which starts anew
	 * in the child (its place from where it went dark) */
	if (have_solo_clock && !pthread_getcpuclockid(pthread_self(), &solo_clock)) {
		uint64_t now = solo_ns();
		for (size_t i = 0; solo_ws && i < ntags; i++)
			solo_ws[i].dark_ns = now;
	} else {
		have_solo_clock = false;
	}
	if (!sock_path || dead)
		watch_quit = 1;
	watch_start();
	pthread_mutex_unlock(&mode_lock);
	if (!sock_path || dead) {
		pthread_mutex_unlock(&lock);
		dead = 1;
		stopped = 1;
		return;
	}
	/* The parent's connection and what it buffered are the parent's: the
	 * child connects on its own when it has something to write, and its
	 * only thread is this one, numbered 0. */
	if (out_fd >= 0)
		close(out_fd);
	out_fd = -1;
	owner_pid = 0;
	ndefs = 0;
	own_blocks = false;
	announced_total = 0;
	nresets = 0;
	struct tstate *me = my_ts;
	for (struct tstate *ts = threads, *next; ts; ts = next) {
		next = ts->next;
		if (ts != me) {
			if (ts->vcpu < MAX_VCPUS && vcpu_ts[ts->vcpu] == ts)
				vcpu_ts[ts->vcpu] = NULL;
			free(ts->buf);
			if (ts->ws != solo_ws)
				free(ts->ws);
			free(ts);
		}
	}
	threads = me;
	nthreads = 0;
	if (me != solo_ts)	/* the first thread's schedules went with it */
		solo_vcpu = UINT32_MAX;
	if (me) {
		me->next = NULL;
		me->tid = nthreads++;
		me->len = 0;
		me->announced = 0;
		me->valid = false;
		me->cur_id = UINT64_MAX;
	}
	/* block counts: the child's own */
	for (size_t i = 0; i < ntbc; i++)
		tbc_chunks[i / TBC_CHUNK][i % TBC_CHUNK].count = 0;
	pthread_mutex_unlock(&lock);
}

static void register_callbacks(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init_cb);
	qemu_plugin_register_vcpu_tb_trans_cb(id, trans_cb);
	qemu_plugin_register_vcpu_syscall_cb(id, syscall_cb);
	if (nobjects)
		qemu_plugin_register_vcpu_syscall_ret_cb(id, syscall_ret_cb);
	qemu_plugin_register_atexit_cb(id, atexit_cb, NULL);
}

/* A reset has landed: every vCPU is stopped, no translation is left, and
 * none of the plugin's callbacks is registered. What is wanted now is
 * what the translations from here on hold. */
static void reset_done(qemu_plugin_id_t id)
{
	pthread_mutex_lock(&mode_lock);
	/* the first thread's clock, for dark code (here on its thread while
	 * it is the only one) */
	if (!multi_thread && !have_solo_clock && solo_ts && __atomic_load_n(&solo_vcpu, __ATOMIC_RELAXED) != UINT32_MAX &&
	    !pthread_getcpuclockid(pthread_self(), &solo_clock))
		have_solo_clock = true;
	uint64_t now = solo_ns();
	bool any = false, darkened = false;
	for (size_t i = 0; i < ntags; i++) {
		struct win_state *w = solo_ws ? &solo_ws[i] : NULL;
		if (w && built_mode[i] == MODE_DARK) {
			/* out of the dark (or dark again): its place reckoned */
			w->pos = dark_place(w, now);
			w->dark_pos = w->pos;
			w->dark_ns = now;
		}
		if (w && want_mode[i] == MODE_DARK && built_mode[i] != MODE_DARK) {
			if (!now) {
				want_mode[i] = MODE_BARE;	/* no clock: counted */
			} else {
				w->dark_pos = w->pos;
				w->dark_ns = now;
				darkened = true;
			}
		}
		built_mode[i] = want_mode[i];
		any |= built_mode[i] == MODE_FULL;
		if (built_mode[i] != MODE_BARE && built_mode[i] != MODE_DARK)
			arm_asked[i] = 0;
	}
	dark_switches += darkened;
	any_built_full = any;
	reset_pending = 0;
	nresets++;
	/* the vCPU that asked, here with the others stopped: the only one
	 * while resets happen (a second thread makes every range full) */
	void **cur = dlsym(RTLD_DEFAULT, "current_cpu");
	if (cur && *cur && !multi_thread)
		solo_cpu = *cur;
	watch_start();
	pthread_mutex_unlock(&mode_lock);
	if (cur && *cur)
		disable_mem_helpers(*cur);
	register_callbacks(id);
}

static void send_error(const char *fmt, const char *what)
{
	char text[256];
	snprintf(text, sizeof(text), fmt, what);
	size_t len = strlen(text), nw = (len + 7) / 8;
	uint64_t m[2 + 32 + 2] = { QW_ERROR | (uint64_t)len << 8 };
	memcpy(&m[1], text, len);
	m[1 + nw] = QW_END;
	m[2 + nw] = 0;
	if (out_fd < 0 && (!sock_path || connect_gus()))
		return;
	write_all(m, (3 + nw) * sizeof(uint64_t));
}

static bool parse_hex(const char *s, const char **end, uint64_t *v)
{
	char *e;
	errno = 0;
	unsigned long long x = strtoull(s, &e, 16);
	if (e == s || errno)
		return false;
	*v = x;
	*end = e;
	return true;
}

static bool parse_ranges(const char *s)
{
	while (*s) {
		struct range r;
		const char *e;
		if (nranges == MAX_RANGES || !parse_hex(s, &e, &r.start) || *e != '-' ||
		    !parse_hex(e + 1, &e, &r.end) || r.end <= r.start)
			return false;
		ranges[nranges++] = r;
		if (*e == ':')
			e++;
		else if (*e)
			return false;
		s = e;
	}
	return nranges > 0;
}

/* DEV:INO[:S-E...], hex */
static bool parse_object(const char *s)
{
	struct object o;
	const char *e;
	if (nobjects == QW_MAX_OBJECTS || !parse_hex(s, &e, &o.dev) || *e != ':' ||
	    !parse_hex(e + 1, &e, &o.ino) || (*e && *e != ':'))
		return false;
	o.r0 = nobj_ranges;
	o.nr = 0;
	s = *e ? e + 1 : e;
	while (*s) {
		struct range r;
		if (nobj_ranges == MAX_OBJ_RANGES || !parse_hex(s, &e, &r.start) || *e != '-' ||
		    !parse_hex(e + 1, &e, &r.end) || r.end <= r.start)
			return false;
		obj_ranges[nobj_ranges++] = r;
		o.nr++;
		if (*e == ':')
			e++;
		else if (*e)
			return false;
		s = e;
	}
	objects[nobjects++] = o;
	return true;
}

static bool parse_onoff(const char *v, bool *out)
{
	if (!strcmp(v, "on") || !strcmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "off") || !strcmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return false;
	return true;
}

GUS_QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					       int argc, char **argv)
{
	const char *bad = NULL;
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "fd=", 3)) {
			char *e;
			long fd = strtol(argv[i] + 3, &e, 10);
			if (*e || fd < 0 || fd > 1 << 20 || fd <= 2)
				bad = argv[i];
			else
				out_fd = (int)fd;
		} else if (!strncmp(argv[i], "sock=", 5) && argv[i][5])
			sock_path = strdup(argv[i] + 5);	/* QEMU's copy may not last */
	if (out_fd >= 0) {
		if (fcntl(out_fd, F_GETFD) < 0)
			return -1;	/* nowhere to say why: gus sees no HELLO */
		owner_pid = getpid();
		/* a program that execs another must not keep gus's pipe open */
		fcntl(out_fd, F_SETFD, FD_CLOEXEC);
		uint64_t hello[2] = { QW_HELLO | (uint64_t)QW_VERSION << 8, QW_MAGIC };
		if (write_all(hello, sizeof(hello)))
			return -1;
	} else if (!sock_path)
		return -1;
	/* else an exec'd program: it connects when it has something to say */

	for (int i = 0; i < argc && !bad; i++) {
		const char *a = argv[i], *v = strchr(a, '=');
		if (!v) {
			bad = a;
			break;
		}
		v++;
		const char *e;
		if (!strncmp(a, "fd=", 3) || !strncmp(a, "sock=", 5))
			continue;
		else if (!strncmp(a, "obj=", 4))
			bad = parse_object(v) ? NULL : a;
		else if (!strncmp(a, "ranges=", 7))
			bad = parse_ranges(v) ? NULL : a;
		else if (!strncmp(a, "xlo=", 4))
			bad = parse_hex(v, &e, &xlo) && !*e ? (have_xlo = true, NULL) : a;
		else if (!strncmp(a, "mem=", 4))
			bad = parse_onoff(v, &mem_on) ? NULL : a;
		else if (!strncmp(a, "counts=", 7))
			bad = parse_onoff(v, &counts_on) ? NULL : a;
		else if (!strncmp(a, "win=", 4) || !strncmp(a, "wins=", 5)) {
			char *we;
			errno = 0;
			unsigned long long w = strtoull(v, &we, 10);
			bad = *we || errno || !*v || !w || w > (1ull << 32) ? a : NULL;
			if (!bad && a[3] == '=')
				win_len = w;
			else if (!bad)
				win_per_level = w;
		} else if (!strncmp(a, "gap=", 4)) {
			char *ge;
			errno = 0;
			cheap_gap = strtoull(v, &ge, 10);
			cheap_ns = 0;	/* records alone (the tests) */
			bad = *ge || errno || !*v || (cheap_gap && cheap_gap < 2 * ARM_RECORDS) ? a : NULL;
		} else if (!strncmp(a, "dark=", 5)) {
			bad = parse_onoff(v, &dark_on) ? NULL : a;
		} else if (!strncmp(a, "pull=", 5)) {
			bad = parse_onoff(v, &pull_on) ? NULL : a;
		} else if (!strncmp(a, "bare=", 5)) {
			char *be;
			errno = 0;
			bare_arm = strtoull(v, &be, 10);
			bad = *be || errno || !*v ? a : NULL;
		} else if (!strncmp(a, "pace=", 5)) {
			char *pe;
			errno = 0;
			cheap_ns = strtoull(v, &pe, 10);
			bad = *pe || errno || !*v ? a : NULL;
		} else if (!strncmp(a, "max=", 4)) {
			char *me;
			errno = 0;
			max_records = strtoull(v, &me, 10);
			bad = *me || errno || !*v ? a : NULL;
		} else
			bad = a;
	}
	if (bad) {
		send_error("gus-qemu-plugin: bad argument '%s'", bad);
		return -1;
	}
	if (strcmp(info->target_name, "x86_64") || info->system_emulation) {
		send_error("gus-qemu-plugin: needs qemu-x86_64 user mode, not '%s'", info->target_name);
		return -1;
	}
	if (nranges && nobjects) {
		send_error("gus-qemu-plugin: %s", "ranges= and obj= exclude each other");
		return -1;
	}
	filtered = nranges || nobjects;
	plugin_id = id;
	ntags = nobj_ranges ? nobj_ranges : 1;
	if (win_len && !(solo_ws = calloc(ntags, sizeof(*solo_ws)))) {
		send_error("gus-qemu-plugin: %s", "out of memory");
		return -1;
	}
	/* block counts are kept per translation: resets would multiply them */
	toggling = win_len && cheap_gap && !counts_on;
	if (toggling) {
		disable_mem_helpers = (void (*)(void *))dlsym(RTLD_DEFAULT, "qemu_plugin_disable_mem_helpers");
		have_current_cpu = dlsym(RTLD_DEFAULT, "current_cpu") != NULL;
		toggling = disable_mem_helpers && have_current_cpu;
	}
	/* by records alone (gap=, cheap_ns 0) the callback asks: exact */
	if (toggling && bare_arm && cheap_ns) {
		async_run = (void (*)(void *, void (*)(void *, uint64_t), uint64_t))dlsym(RTLD_DEFAULT,
											 "async_run_on_cpu");
		inline_cheap = async_run != NULL;
	}
	memset(want_mode, MODE_FULL, sizeof(want_mode));
	memset(built_mode, MODE_FULL, sizeof(built_mode));
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	register_callbacks(id);
	return 0;
}
