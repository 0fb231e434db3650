/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pipe between gus's QEMU plugin (qemu_plugin.c, inside qemu-x86_64)
 * and gus (qemu.c). Both ends run on the same machine: words are native
 * 64-bit integers, no byte swapping.
 *
 * The stream is a sequence of messages, each one or more 64-bit words; the
 * low 4 bits of a message's first word are its type (enum qw_type), the
 * rest is type-specific:
 *
 *   HELLO   w0 = type | version << 8; w1 = QW_MAGIC.  Always first, on
 *           every connection (the fd= pipe of the program, and each
 *           connection to sock= of a forked child or an exec'd program).
 *   BIAS    w0 = type; w1 = load bias (runtime - link-time address of the
 *           program QEMU loaded), once, at the first translation.
 *   MAP     w0 = type | object << 8; w1 = runtime start; w2 = length;
 *           w3 = file offset (page-aligned start, length and offset):
 *           traced object OBJECT (the index of its obj= argument) is
 *           mapped executable at [start, start+length) from that file
 *           offset: the segments of the binary QEMU loaded (at the first
 *           translation) and every guest mmap with PROT_EXEC of the file
 *           (matched by device and inode). Sent before any BLOCK inside it.
 *   EXECVE  w0 = type; w1 = 0. The process calls execve: if the call
 *           succeeds the connection closes without END (the new program,
 *           when followed, connects anew); if it fails the stream goes on.
 *   BLOCK   w0 = type | ninsns << 8 | id << 24 (ids count up from 0);
 *           then per instruction 4 words: vaddr, size | sflags << 8, and
 *           the 16 instruction bytes (the first size of them valid).
 *           The in-range instructions of one translated block, in order.
 *           Sent before any execution refers to it: once per translation,
 *           or (win=) once per distinct block, a block translated again
 *           with the same instructions, flags and place keeping its id
 *           while the traced mappings stay as they are.
 *   CHUNK   w0 = type | thread << 8; w1 = number of words that follow.
 *           Those words are EXEC and MEM messages of that guest thread
 *           (threads are numbered by the plugin from 0, in the order the
 *           process created them; a thread's first chunk comes when
 *           its buffer fills or it ends, so thread 3's may come before
 *           thread 1's). One thread's chunks come in execution order;
 *           chunks of different threads interleave.
 *   EXEC    w0 = type | xflags << 4 | id << 8: block ID executed once.
 *           xflags resolve the boundary between the thread's previous
 *           record and this block's first: QW_X_PREV_TAKEN, QW_X_ENTRY.
 *   WINDOW  w0 = type | range << 8 | index << 32, inside a chunk (win=):
 *           the next EXEC of the chunk's thread starts that thread's
 *           window INDEX of traced range RANGE (the place of the range
 *           among all obj= ranges, in order). Window J of a range stands
 *           for W * 2^(J / K) of the thread's records in it (win=W,
 *           wins=K); the records of the range up to the next WINDOW of the
 *           same range belong to it.
 *   MEM     w0 = type | store << 4 | size_shift << 5 | index << 7 |
 *           vaddr << 16: a data access of instruction INDEX (0-based, in
 *           the block of the thread's last EXEC), in access order.
 *           vaddr is the low 48 bits (user-space addresses fit).
 *   COUNT   w0 = type | ninsns << 8; w1 = runtime address; w2 = executions
 *           of translated blocks starting there with that many instructions
 *           (all code, not only the ranges). At exit, before END.
 *   RESETS  w0 = type | late << 8 | arms << 36 | dark << 50 (28, 14 and
 *           14 bits); w1 =
 *           switches | pulled << 32 (32 bits each): SWITCHES, how many
 *           times the plugin switched its instrumentation (win=: cheap
 *           outside the windows, full near them; each a flush of QEMU's
 *           translations); ARMS: of those, switches back from bare code
 *           asked by the watcher thread; DARK: of those, switches that
 *           made some range's code dark (nothing in it: its place
 *           reckoned from the time); LATE: windows that opened after
 *           their scheduled start (the switch to full code came late);
 *           PULLED: windows opened early, in another range's switch to
 *           full code (0 from plugins before it). At exit, before END
 *           (version 3; LATE and ARMS 0 before).
 *   END     w0 = type | flags << 8 (QW_END_*); w1 = records the plugin
 *           announced (sum of executed block sizes). The stream ended
 *           cleanly; its absence means qemu died or the plugin failed.
 *   ERROR   w0 = type | length << 8, then the message text padded to words.
 *           The plugin refused its arguments (it sends END after it).
 *
 * Each connection is one process: block ids and thread numbers are its
 * own. A forked child does not write to its parent's connection: it opens
 * its own to sock= (when it first has something to send), sends HELLO,
 * then again every BIAS, MAP and BLOCK message its parent had sent before
 * the fork (it refers to those blocks), then its own stream.
 *
 * Static flags of a block's instruction (sflags): QW_S_FALL_OUT: the
 * translated block goes on with instructions outside the ranges after this
 * one, so it falls through (not taken) and the next record is an entry.
 * Instructions inside a translated block never branch (QEMU ends a block
 * at every control transfer), so all others fall through to the next.
 */
#ifndef GUS_QEMU_WIRE_H
#define GUS_QEMU_WIRE_H

#include <stdint.h>

#define QW_VERSION 3
#define QW_VERSION_MIN 1	/* version 1: no MAP, no EXECVE; 2: no RESETS (gus reads them still) */
#define QW_MAGIC 0x31554d4551535547ull	/* "GUSQEMU1" in little-endian bytes */

enum qw_type {
	QW_HELLO = 1,
	QW_BIAS,
	QW_BLOCK,
	QW_CHUNK,
	QW_EXEC,
	QW_MEM,
	QW_COUNT,
	QW_END,
	QW_ERROR,
	QW_MAP,
	QW_EXECVE,
	QW_WINDOW,
	QW_RESETS,
};

#define QW_TYPE(w) ((unsigned)((w) & 0xf))

enum {
	QW_X_PREV_TAKEN = 1u << 0,
	QW_X_ENTRY = 1u << 1,
};

enum {
	QW_S_FALL_OUT = 1u << 0,
};

enum {
	QW_END_STOPPED = 1u << 0,	/* the plugin stopped emitting at max= */
};

#define QW_INSN_WORDS 4
#define QW_MAX_BLOCK_INSNS 0xffff	/* ninsns field width; QEMU's blocks hold at most 512 */
#define QW_MAX_OBJECTS 256	/* obj= arguments */
#define QW_MAX_WINDOW_INDEX 0xffffffu	/* WINDOW index field: 2^24 windows of a range */
#define QW_MEM_ADDR_MASK 0xffffffffffffull

#endif
