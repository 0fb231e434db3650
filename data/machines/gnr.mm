machine gnr
base spr
# gus machine model: Intel Granite Rapids (Xeon 6 with P-cores, 6900P/6700P,
# family 6 model 173; Granite Rapids-D, model 174), the Redwood Cove server
# core with AVX-512 (two 512-bit FMA units) and AMX. The client Redwood Cove
# (Meteor Lake P-core) has the same core apart from the disabled AVX-512 and
# AMX and the client L3. Format: data/machines/FORMAT.
#
#
# How this file is written. Redwood Cove is a small step from Golden Cove /
# Raptor Cove: Chips and Cheese found no changed core structure size, and
# Intel's optimization manual lists one change in the execution units. So
# this model is written as its differences to spr.mm (Golden Cove, measured
# on Sapphire and Emerald Rapids guests): `base spr` reads spr.mm first,
# and each statement below replaces spr.mm's (a form here takes precedence
# over spr.mm's forms; a cache level is restated whole). Every number below
# is marked "RWC:" and names its source; every number not restated here is
# spr.mm's and was not verified on Granite Rapids (in spr.mm's comments,
# "measured" means the rdtsc runs on the Sapphire Rapids (model 143) and
# Emerald Rapids (model 207, Raptor Cove) guests it describes).
#
# Sources (public only):
# [ORM] Intel 64 and IA-32 Architectures Optimization Reference Manual,
#       Volume 1, its list of what Redwood Cove and Granite Rapids change,
#       as [CC-RWC] quotes it: better branch prediction and a shorter
#       average misprediction recovery (no number), a 64 KB instruction
#       cache, a 192-entry IDQ for the loop stream detector (96 per thread
#       with SMT), new LD+OP and MOV+OP macro-fusion, "3-cycle Floating
#       Point multiplication" (the one change listed for the execution
#       units), 64 outstanding L2 misses (48 before), an LLC page
#       prefetcher and an array-of-pointers prefetcher; on Granite Rapids
#       only, the code software prefetch instructions and AMX-FP16.
# [CC-RWC] Chips and Cheese, "Intel's Redwood Cove: Baby Steps are Still
#       Steps" (2024-09-22), Meteor Lake measurements: the 12K-entry BTB of
#       Golden Cove with 2 instead of 3 cycles of latency, a 128-entry
#       1-cycle L1 BTB, the 4096-entry µop cache, no changed backend
#       structure size, FP multiply 3 cycles, FP add 2 cycles since Golden
#       Cove.
# [CC-MTL] Chips and Cheese, "Previewing Meteor Lake at CES" (2024-01-11):
#       48 KB L1D 5 cycles, 2 MB L2 16 cycles.
# [CC-X6] Chips and Cheese, "A Look into Intel Xeon 6's Memory Subsystem"
#       (2025-09-26), a Xeon 6 6985P-C (96 cores up to 3.9 GHz, 120 L3
#       slices, 480 MB L3, SNC3, DDR5-7200) in an AWS r8i instance: L1D 5,
#       L2 16 cycles; L3 hit ~33 ns (~130 cycles) on the local die, ~58 and
#       ~80 ns one and two dies away; local DRAM ~131 ns; one core reads ~30
#       GB/s from L3 and a little under 20 GB/s from DRAM; 2x512-bit loads
#       and 1x512-bit store per cycle to L1D.
# [INTEL-6980P] Intel's product page of the Xeon 6980P: 128 cores, 504 MB
#       L3 ("504M cache"); Intel SDE 9.33 listed 480 MB for Granite Rapids
#       (reported by Tom's Hardware and TweakTown, January 2024).
# [HC24] Intel, "Built for the Edge: The Intel Xeon 6 SoC" (Hot Chips 2024,
#       Granite Rapids-D): L2 miss latency 33 ns (a slide footnote, as a
#       public write-up quotes it).
#
# Conventions of this file: those of spr.mm (ports A = 10 and B = 11; forms
# written for the register operands; pure loads lat=0; eliminated moves
# `- lat=0 fused=1`; {k} masking not part of the key).
# - Port groups: p0156A = integer ALU (5 ALUs, fast LEA on all of them),
#   p06 = branch / shift / cmov unit, p6 = taken branches, p1 = integer
#   multiply, popcnt/lzcnt/tzcnt, bsf, pdep, crc32, slow bit ops and the
#   integer divider, p15A = BMI1 logic (andn, blsr, ...) and movsx, p015 =
#   vector ALU (xmm/ymm), p01 = FMA/mul and the "p01-class" integer ops (min/
#   max, abs, avg, saturating add, compare into a vector, shifts, multiply),
#   p15 = the FADD units (FP add/sub, 2 cycles) and the second shuffle unit
#   (in-lane integer shuffles, shufps, movshdup), p5 = main shuffle unit
#   (FP shuffles, lane crossing, packs, palignr, GPR->vector), p0 = FP
#   divider, vector->GPR, mask ops, p23B = load (3 per cycle), p78 = store
#   address, p49 = store data (2 stores per cycle), p23 = gather element
#   loads (see the gathers).
# - 512-bit µops: ports 0 and 1 are fused into one 512-bit unit on port 0,
#   and port 5 has its own 512-bit unit, as on Sapphire Rapids: [CC-X6]
#   reports two 512-bit FMA units on Xeon 6's Redwood Cove.
# - Not expressible in the format (known deviations):
#   * 512-bit loads run on ports 2 and 3 only (2 per cycle; [CC-X6]: two
#     512-bit loads per cycle); the model lets them use p23B like every load
#     (3 per cycle). Since zmm compute is 2 per cycle (p05) this rarely
#     binds. 512-bit stores are written p78+2p49 (one per cycle, [CC-X6]).
#   * Bypass delays: on Golden Cove an FP add result (p15 FADD) feeding an
#     FMA/mul costs one more cycle (measured there); not modelled, and not
#     known for Redwood Cove.
#   * Front end: the 64 KB L1 instruction cache (32 KB before), the
#     4096-entry µop cache, the 192-entry µop queue that the loop stream
#     detector uses (144 before), the 2-cycle 12K-entry BTB and the taken
#     hint prefix (0x3E) that Redwood Cove now obeys for branches the
#     predictor does not know: the model has no instruction cache, decoder
#     or µop cache, and one issue width.
#   * MOV+OP and LD+OP macro-fusion [ORM]: a register move or a load fused
#     with a following dependent operation into one µop slot. The format
#     fuses only a flag-setting instruction with a following jcc; the moves
#     keep their own slot (an eliminated `mov r64,r64` still takes one), so
#     loops with such pairs are modelled slightly front-end pessimistic.
#   * Prefetchers (LLC page, array of pointers) and the deeper L2 miss queue
#     (64 entries): the model has no prefetcher and no miss queue.
#   * PREFETCHIT0/1 (code software prefetch) decode as a hint NOP and take
#     the `nop` forms; AMX and AMX-FP16 (TDPFP16PS) are not written out, as
#     in spr.mm (the Zydis 4.0 of Debian 12 does not decode TDPFP16PS at
#     all). AVX512-FP16 arithmetic takes the category lines, as in spr.mm.
describe Intel Granite Rapids (GNR, Redwood Cove server core): 6-wide, 512-entry ROB, 12 ports, AVX-512 with 2 FMA units, 3-cycle FP mul, 2 MiB L2, 4 MiB L3 per core
alias graniterapids redwoodcove rwc

# Kept from spr.mm, with what the sources say of Redwood Cove: width 6,
# 512-entry ROB, 8-wide retirement, scheduler, buffers and the front end's
# branch rules ([CC-RWC] found no core structure size changed); the 48 KiB
# L1D and 2 MiB L2 at 5 and 16 cycles ([CC-MTL], [CC-X6]); the 12K-entry
# BTB ([CC-RWC]: its latency drops from 3 to 2 cycles, which the model does
# not time); the 17-cycle misprediction penalty ([ORM] says Redwood Cove
# recovers faster on average, but publishes no number). The 64 KB L1
# instruction cache has no statement in the format.

# ----------------------------------------------------------- caches ---
# RWC: L3 slice, latency and bandwidth changed (Granite Rapids). [CC-X6]:
# 120 slices and 480 MB on the 6985P-C = 4 MB per slice; [INTEL-6980P]: 504
# MB for 128 cores (~3.9 MB per core). The associativity is not published:
# 16 ways is an estimate (4096 sets). Latency on the local die in SNC3
# (Intel's default): ~33 ns, ~130 cycles at 3.9 GHz [CC-X6] (33 ns of L2
# miss latency on Granite Rapids-D too [HC24]) -> 125 over L1 (spr.mm: 70).
# Without SNC, two thirds of the lines sit on another die (+25 to +47 ns,
# [CC-X6]); at lower clocks the cycles shrink in proportion. Bandwidth: one
# core reads ~30 GB/s from L3 [CC-X6] = ~7.7 B per cycle at 3.9 GHz -> 8
# cycles per line (spr.mm: 4, an estimate).
cache L3 size=4M ways=16 line=64 latency=125 gap=8
# RWC: DRAM latency changed (Granite Rapids). [CC-X6]: local DRAM ~131 ns in
# SNC3 (DDR5-7200) = ~510 cycles at the 3.9 GHz of the L3 figure -> 505 over
# L1 (spr.mm: 295 at ~2.3-2.5 GHz); one core reads a little under 20 GB/s =
# ~5 B per cycle -> ~12.5 cycles per line, 12 as spr.mm.
memory latency=505 gap=12

# ------------------------------------------------------------ forms ---
# RWC: FP multiplication takes 3 cycles ([ORM] "EXE: 3-cycle Floating Point
# multiplication", quoted in [CC-RWC]; spr.mm: 4, measured on Golden Cove).
# Same ports as spr.mm (the FMA units, p01 at xmm/ymm, p05 at zmm). The
# manual does not restrict the change to a width, so zmm is 3 as well (not
# verified at zmm).
form vmulps|vmulpd z,z,z p05 lat=3
form vmulps|vmulpd z,z,mb p05+p23B lat=3
form vmulps|vmulpd v,v,mb p01+p23B lat=3
form vmulps|vmulpd|vmulss|vmulsd v,v,v p01 lat=3
form mulps|mulpd|mulss|mulsd x,x p01 lat=3
# The scalar forms with a 32/64-bit memory operand, written out in spr.mm,
# follow the multiplication too.
form vmulss|vmulsd x,x,m p01+p23B lat=3          # RWC: 3-cycle FP multiply [ORM]
form mulss|mulsd x,m p01+p23B lat=3              # RWC: 3-cycle FP multiply [ORM]
