machine spr
# gus machine model: Intel Sapphire Rapids (4th generation Xeon Scalable,
# Golden Cove server core, AVX-512 and AMX enabled). The client Golden Cove
# (Alder Lake P-core) has the same core apart from the disabled AVX-512, the
# 1.25 MiB L2 and the client L3. Format: data/machines/FORMAT.
#
# Sources of the numbers: the Intel 64 and IA-32 Architectures Optimization
# Reference Manual (Golden Cove / Sapphire Rapids sections), Intel Architecture
# Day 2021, uops.info (ADL-P = client Golden Cove), Agner Fog's tables and
# microarchitecture guide, Chips and Cheese ("Popping the Hood on Golden Cove",
# "Sapphire Rapids: Golden Cove Hits Servers"), the LLVM scheduling model
# X86SchedSapphireRapids.td (generated from Intel's measurements) as a cross-
# check of µop counts and ports, and rdtsc micro-benchmarks run on a Xeon
# Sapphire Rapids (family 6 model 143) KVM guest: dependency chains for
# latencies (calibrated against a chain of `add r64,r64`), groups of six
# independent instructions for throughput/port counts. Throughput measured in
# that guest is noisy (a busy SMT sibling can halve it), so port assignments
# were taken from the sources above and only confirmed by the measured ratios
# (1, 2 or 3 per cycle). "measured" in a comment refers to these runs; the
# comment next to a line says which value was kept where sources disagree.
#
# Conventions of this file
# - Port names: the format allows one character per port, so ports 10 and 11
#   are written A and B: `ports 0 1 2 3 4 5 6 7 8 9 A B` (A = port 10, B =
#   port 11), and groups read p0156A (ports 0, 1, 5, 6, 10), p23B (2, 3, 11).
# - Port groups: p0156A = integer ALU (5 ALUs, fast LEA on all of them),
#   p06 = branch / shift / cmov unit, p6 = taken branches, p1 = integer
#   multiply, popcnt/lzcnt/tzcnt, bsf, pdep, crc32, slow bit ops and the
#   integer divider, p15A = BMI1 logic (andn, blsr, ...) and movsx, p015 =
#   vector ALU (xmm/ymm), p01 = FMA/mul and the "p01-class" integer ops (min/
#   max, abs, avg, saturating add, compare into a vector, shifts, multiply),
#   p15 = the new FADD units (FP add/sub, 2 cycles) and the second shuffle
#   unit (in-lane integer shuffles, shufps, movshdup), p5 = main shuffle unit
#   (FP shuffles, lane crossing, packs, palignr, GPR->vector), p0 = FP
#   divider, vector->GPR, mask ops, p23B = load (3 per cycle), p78 = store
#   address, p49 = store data (2 stores per cycle), p23 = gather element
#   loads (see the gathers).
# - 512-bit µops: ports 0 and 1 are fused into one 512-bit unit on port 0,
#   and port 5 has its own 512-bit unit (FMA, logic, add, shuffles). So a µop
#   that runs on p015 (or p01/p15 for FP) at xmm/ymm runs on p05 at zmm, and a
#   p01-class integer op runs on p0 only at zmm. All Xeon SPR SKUs have the
#   second (port 5) 512-bit FMA.
# - Forms are written for the register operands; the memory versions are
#   derived by the rule of FORMAT (one p23B µop per memory source, p78+p49 per
#   memory destination). Memory forms are written out only for pure loads and
#   stores and where the memory version differs.
# - Pure loads are written with lat=0: the model adds the load latency of the
#   destination kind (load-latency below) to every form with a memory source.
# - Eliminated moves and NOPs are written `- lat=0 fused=1`: no µop executes,
#   but they still take an issue slot and a ROB entry.
# - EVEX {k} masking is not part of the key, so a masked form costs the same
#   as the unmasked one.
# - Not expressible in the format (known deviations):
#   * 512-bit loads run on ports 2 and 3 only (2 per cycle); the model lets
#     them use p23B like every load (3 per cycle). Since zmm compute is 2 per
#     cycle (p05) this rarely binds.
#   * Two stores per cycle only when both go to the same cache line (measured:
#     1 per cycle for stores alternating between two lines, as on Ice Lake);
#     the model allows 2 per cycle. 512-bit stores are written p78+2p49 (one
#     per cycle, 64 B/cycle).
#   * Bypass delays: an FP add result (p15 FADD, 2 cycles) feeding an FMA/mul
#     costs one more cycle (measured add->mul chain 7 = 2+4+1).
#   * Fast store forwarding: a load from the address of a recent store with
#     the same non-indexed addressing gets the data almost at once (measured
#     0.8 cycles store+load round trip for `mov [rdi],rax; mov rax,[rsi]`);
#     the model uses the ordinary forwarding latency (store-forward below).
describe Intel Sapphire Rapids (SPR, Golden Cove server core): 6-wide, 512-entry ROB, 12 ports, AVX-512 with 2 FMA units, 2 MiB L2, 1.875 MiB L3 slice per core
alias sapphirerapids glc goldencove

# ------------------------------------------------------------- core ---
ports 0 1 2 3 4 5 6 7 8 9 A B       # A = port 10, B = port 11. ALU 0 1 5 6 A, load AGU 2 3 B, store AGU 7 8, store data 4 9
window 512                          # reorder buffer entries (Intel Architecture Day 2021, opt. manual)
# Allocation waits for a free entry of the 97-entry math scheduler (Intel
# Architecture Day 2021: ALU and vector ports; loads and stores have their
# own): µops waiting on a long chain fill it, which limits how far a
# restarted chain overlaps the last (measured: gemv rows 2.81 cycles per
# iteration, 2.83 with it, 2.54 without; a Gauss-Seidel row 11.6, 10.7,
# 8.3).
scheduler 97
# Loads and stores hold an entry of their buffer from allocation until
# they retire (Intel Architecture Day 2021: 192 loads, 114 stores in
# flight); a vector result holds a rename register (Chips and Cheese, SPR
# data: 295 in flight for 256-bit results). With a restarted chain of
# FMAs fed by two loads, the load buffer is what limits the overlap:
# measured 1.77 cycles per iteration, 1.54 with it, 1.13 without
# (bench/accuracy/chains.txt: fchain64; vaddsd chains unchanged).
load-buffer 192
store-buffer 114
# Branches hold an entry from allocation until they retire too: measured on
# an Emerald Rapids guest, a dependent chain restarted every pass overlaps
# the next pass by as many iterations as about 80 branches allow, whatever
# its operation (imul, popcnt, vmulsd, FMA, vaddsd; 48 to 512 per pass):
# two branches per iteration halve the overlap (imul 64: 82.2 cycles per
# pass, 104.5 with a never-taken jcc beside the latch), two chain ops per
# branch double it (128 imuls over 64 iterations 184 against 219 over
# 128). Without it, 38 restarted-chain probes 13.8 % MAPE, with 80 5.9 %
# (96: 7.0, 64: 9.8; bench/accuracy/chains.txt, nests.sh). Intel does not publish
# the size of Golden Cove's branch order buffer.
branch-buffer 80
vector-renames 295
frontend 6                          # rename/allocate width: 6 fused-domain µops per cycle (Intel; decode is 6-wide, µop cache 8)
retire 8                            # retirement: 8 fused-domain µops per cycle (Intel Architecture Day 2021, Golden Cove: "8-wide retire")
# A load-op with an indexed address (base + index) is un-laminated at
# allocation unless it is a legacy two-operand update of a register (add
# rax, [rdi+rcx*8] and addps xmm0, [rdi+rcx] stay fused; cmp rax,
# [rdi+rcx], vaddps xmm1, xmm2, [rdi+rcx], vfmadd231ps and andn do not):
# measured on an Emerald Rapids guest, such an instruction takes 2 to 3
# allocation slots, 1.75 more than fused on average over 11 loops of 1 to 6
# of them among nops (2.33 cycles for one in a 12-slot loop, 4.00 for six,
# 2.00 for the same three as 1.00 with [rdi+disp]); indexed stores and pure
# loads stay one slot (bench/accuracy/lamination.txt).
unlaminated-slots 1.75
# One taken branch per cycle: measured loops here never run faster than one
# iteration per cycle.
taken-branch-rate 1
# Two taken branches in one cycle when they lie in different 64-byte lines:
# measured on an Emerald Rapids guest, a loop with a taken jcc and its
# latch runs at 2.00 cycles per iteration with both in one line and at 1.00
# with the jcc at the end of one line and the latch in the next (also the
# compare-and-skip of floyd-warshall; bench/accuracy/branches.txt).
taken-branch-pairs 64
# A loop whose branch straddles a 64-byte boundary runs at most one
# iteration per 2 cycles: measured on an Emerald Rapids (Raptor Cove) guest,
# five adds and dec/jnz at 1.00 cycles per iteration aligned, or with a
# boundary between two instructions, and 2.00 when jnz crosses it; a
# 2-cycle loop (ten adds) is not slowed (bench/accuracy/placement.txt).
# The head of a macro-fused pair counts: 2.00 when the dec of dec/jnz
# crosses, about 1.1 when the boundary falls between dec and jnz
# (branches.txt).
branch-window-cross 64 2
# Two stores commit in one cycle only to one cache line: measured there,
# two read-modify-writes to lines 64 bytes apart take 2.0 cycles, nine
# stores over two lines 5.0 (placement.txt; Intel: two stores per cycle,
# to the same line).
store-pairs-same-line
# A load across a cache line takes the load ports three times: three ymm
# loads per iteration, one crossing a line every other iteration, run at
# 1.70 cycles per iteration against 1.11 aligned, two crossing at 1.85, two
# loads both crossing at 1.28 (bench/accuracy/memprobe.txt). A 32-byte
# store across a line costs 1.3 more cycles of the store commit (1.66 per
# iteration, one split store every other one); 16- and 8-byte ones cost
# nothing measurable. Both need the data address (a trace).
split-load 2
split-store 32 1.3
# A line moved between the L1 and the L2 (filled on a miss, or a dirty
# line written back) takes the L1's load ports for a cycle: fitted to the
# compiled axpy at -O3 (2.29 cycles per 8 floats from L2, 1.30 without this
# rule), it gives jacobi1d 3.17 (measured 2.94), heat 4.55 (4.37), jacobi2d
# 71 (61) per iteration (bench/accuracy/compiled/; needs the trace's
# addresses).
l1-transfer 3
# Such a line also holds up issue for 0.75 cycles: measured on an Emerald
# Rapids guest, loops whose data streams through the L2 run slower than in
# the L1 by about 0.75 cycles per line moved in or out, even where neither
# the load ports nor the L2's bandwidth binds them (the -O2 jacobi1d body
# 1.33 cycles per iteration from the L1, 1.61 from the L2, 3/8 of a line
# moved per iteration; the -O2 gemm body 1.13-1.18 and 1.59, 3/4 of a line;
# bench/accuracy/l2stall.txt). Fitted there: 0.5 and 1.0 fit worse.
l1-transfer-stall 0.75
# A dirty line leaves the L1 through its write-back path one per 4 cycles:
# measured on an Emerald Rapids guest, a store stream into the L2 commits a
# line per 4.03 cycles whatever its stores' width and number (8 to 64
# bytes, 1 to 4 per line), and so does a read-modify-write stream, where a
# load stream takes 1.26 (bench/accuracy/l2probe.txt). The L2 takes 2.15
# cycles of its bandwidth per line written back (wgap below): a copy or an
# axpy over the L2, a line in, one in for ownership and one back, 4.74.
l1-writeback 4
# Golden Cove forwards a store to a later non-indexed load of the same
# [base+displacement] without the forwarding latency (about 0.8 cycles
# measured for such a round trip, against 5-6 for indexed addresses).
memory-renaming
# The direction predictor sees about 68 outcomes: measured on an Emerald
# Rapids guest, an inner loop of T one-cycle iterations exits without a
# misprediction up to 68 trips (66.4 cycles per pass for 64, 71 for 68)
# and with one from 72 (107.6 cycles for 72, 129.3 for 80, 178 for 128;
# 96 is an exception, 99 cycles). gus's TAGE predicts up to its longest
# history: 68 here, 100 by default (bench/accuracy/exits.txt: 23 exit nests
# 12.7 -> 10.8 % MAPE).
branch-history 68
mispredict-penalty 17               # Golden Cove ~17 cycles (published estimates, Intel/Chips and Cheese); measured ~22 per mispredict in a load-test-jz loop, which includes ~5-6 cycles until the next branch resolves
load-latency 5 x=6 y=7 z=7          # L1 load-to-use: GPR 5 (measured pointer chase 5.0, also with index); xmm 6, ymm 7, zmm 7 (measured load + vmovq r,x chains 8/9/9 with vmovq 2)
store-forward 5                     # data of a store to a dependent load: measured round trip 5.9 (mov [rdi+rcx*8],rax; mov rax,[...]) and 7 for add [rdi],rcx (= 1 store + 5 + 1 add); vector round trip 7.2. The fast path of GLC (0.8, same non-indexed address) is memory-renaming above

# ----------------------------------------------------------- caches ---
cache L1D size=48K ways=12 line=64 latency=0              # 48 KiB 12-way, 64 sets
cache L2 size=2M ways=16 line=64 latency=11 gap=1.3 wgap=2.15       # 2 MiB 16-way private L2 (SPR server; client 1.25 MiB): ~16 cycles load-to-use = 5 + 11 (measured 16.5 with 2 MiB pages; Intel 15-16); measured streaming 1.3 cycles per line (~50 B/cycle)
cache L3 size=1920K ways=15 line=64 latency=70 gap=4      # one 1.875 MiB 15-way slice per core (non-inclusive, mesh; 2048 sets): ~30-33 ns published, ~75 cycles at ~2.3-2.5 GHz -> 70 over L1 (estimate); ~16 B/cycle per core -> 4 cycles per line (estimate, as SKX)
memory latency=295 gap=12           # DRAM (DDR5): ~110-130 ns published, ~300 cycles at ~2.3-2.5 GHz -> 295 over L1 (estimate; the KVM guest measured 145-150 ns = ~350 cycles); one core streams ~11-13 GB/s in the guest = ~12-13 cycles per line
btb sets=2048 ways=6                # 12K-entry BTB (Intel Architecture Day 2021); geometry not documented (estimate)
divider 1                           # FP divider on port 0; the integer divider is a separate unit on port 1 on GLC, but the model has one DIV resource (mixing int and FP division in one loop is rare)
load-uop p23B                       # a load µop runs on port 2, 3 or 11
store-uops p78+p49                  # store-address µop on port 7 or 8, store-data µop on port 4 or 9

# ========================================================================
# General-purpose moves, loads and stores
# ========================================================================
form mov r64,r64 - lat=0 fused=1 elim            # move elimination at rename (measured 0 latency, also for r32)
form mov r32,r32 - lat=0 fused=1 elim
form mov r,r p0156A                              # 8/16-bit moves merge into the old register: not eliminated
form mov r,i p0156A                              # also movabs r64, imm64
form mov r8,m p23B+p0156A                        # load + merge into the old register (LLVM SPR: 2 µops)
form mov r16,m p23B+p0156A
form mov r,m p23B lat=0                          # pure load
form mov m,r p78+p49                             # store: 1 fused µop
form mov m,i p78+p49
form movnti m,r p78+p49                          # non-temporal store
form movzx|movsx|movsxd r,m p23B lat=0           # the load unit zero/sign-extends: pure load
# movzx r32,r8/r16 is eliminated at rename when source and destination are
# different registers (measured 0 latency), not for `movzx eax, al` (1 cycle),
# which is the more frequent case in compiled code (about 3:1 in the corpus).
form movzx r,r p0156A
form movsx|movsxd r,r p15A                       # ports 1, 5, 10 (LLVM SPR; measured 3 per cycle, 1 cycle)
form cbw|cwde|cdqe - p15                         # LLVM SPR: port 1 or 5
form cwd - p0156A+p06 lat=2
form cdq|cqo - p06                               # sign into edx/rdx
# LEA runs on all five ALU ports on Golden Cove. Latency (measured): base+disp
# 0 for r64 (handled at rename like add r64,imm), base+index 1, any scaled
# index 2, three components 2. The key `a` does not tell them apart; in the
# corpus about 2/3 of `a` are base+disp, 1/4 scaled: 1 kept.
form lea r,a p0156A                              # 1 or 2 components
form lea r,a3 p0156A lat=2                       # base+index+disp: 2 cycles, no longer a slow p1-only LEA
form push r p78+p49                              # stack engine updates rsp: 1 fused µop
form push i p78+p49
form push m p23B+p78+p49 fused=2                 # load + store: 2 fused
form pop r p23B lat=0                            # load; rsp handled by the stack engine
form pop m p23B+p78+p49 fused=2                  # load + store: 2 fused
form xchg r,r 3p0156A lat=2                      # 3 µops, 2 cycles (measured 2)
form xchg r 3p0156A lat=2                        # short accumulator form: eax/rax is implicit in the key
form xchg|lock.xchg m,r p23B+p78+p49+5p0156A lat=20 serial   # memory operand: implicitly locked, full fence (measured ~20 cycles)
form bswap r32 p1                                # LLVM SPR: p1 (measured 1 per cycle, 1 cycle)
form bswap r64 p06+p1 lat=2                      # measured 2 cycles
form bswap r16 p1
form movbe r32,m p23B+p1                         # load + byte swap
form movbe r64,m p23B+p06+p1 lat=2
form movbe r16,m p23B+p06+p0156A
form movbe m,r32 p1+p78+p49
form movbe m,r64 p06+p1+p78+p49 lat=2
form movbe m,r16 p06+p78+p49
form lahf|sahf - p06
form clc|stc|cmc - p0156A
form cld|std - 3p0156A lat=3
form pushfq|pushf - p78+p49+p06+p1                # LLVM SPR: 4 µops
form popfq|popf - p23B+2p06+p1+3p0156A lat=5       # LLVM SPR: 7 µops, 5 cycles
form xlat - p23B+p0156A

# ========================================================================
# Integer ALU
# ========================================================================
# Zero idioms: xor/sub of a 32/64-bit register with itself is removed at
# rename (no µop, no dependency).
form xor r32,r32 p0156A zero-idiom
form xor r64,r64 p0156A zero-idiom
form sub r32,r32 p0156A fuse zero-idiom
form sub r64,r64 p0156A fuse zero-idiom
# Memory-destination and memory-immediate forms written out: they never
# macro-fuse (as Skylake: cmp/test/add/sub/and/inc/dec fuse with a following
# jcc for reg,reg / reg,imm / reg,mem / mem,reg, not mem,imm or mem dest).
form cmp|test m,i p0156A+p23B                    # micro-fused load+op, no macro-fusion
form add|sub|and|or|xor m,* p0156A+p23B+p78+p49  # RMW: 4 µops, 2 fused (measured add [rdi],rcx chain 7 cycles)
form inc|dec m,* p0156A+p23B+p78+p49 fused=3     # RMW inc/dec: 3 fused (flags merge)
form neg|not m,* p0156A+p23B+p78+p49
form adc|sbb m,* p06+p0156A+p23B+p78+p49 fused=4 # RMW adc/sbb: 6 µops (LLVM SPR)
# Golden Cove executes `add/sub r64, small imm`, `inc/dec r64` (and lea
# r64,[r+disp]) at rename: a chain of them runs at ~0.3 cycles per
# instruction, and `add rax,1; imul rax,rax` chains at 3 cycles (measured;
# LLVM SPR: 0 µops for ADD64ri8/INC64r). Not for r32 (measured 1 cycle), not
# for immediates beyond ~12 bits (add rax,100000: 1 cycle), and the flags
# still cost a cycle when a non-branch reads them (add + cmov: 2 cycles).
# They take no ALU port: twenty `add r64,1` and dec/jnz run at 3.50 cycles
# per iteration on an Emerald Rapids guest (21 µops at 6 per cycle; five
# ALUs would need 4.2), five at 1.00, ten at 2.00 (bench/accuracy/
# placement.txt, results/). Before a jcc they fuse with it as usual.
form add|sub r64,i p0156A rename fuse
form inc|dec r64 p0156A rename fuse
# Register forms (the memory-source versions are derived: + p23B, fused)
form add|sub|and|cmp|test r,r p0156A fuse
form add|sub|and|cmp|test r,i p0156A fuse
form add|sub|and|cmp|test i p0156A fuse          # al/ax/eax/rax short forms: the register is implicit in the key
form inc|dec r p0156A fuse
form or|xor r,r p0156A                           # or/xor do not macro-fuse
form or|xor r,i p0156A
form or|xor i p0156A
form neg|not r p0156A
form adc|sbb r,r p06                             # 1 µop, 1 cycle (measured)
form adc|sbb r,i p06
form adc|sbb i p06
form adcx|adox r,r p06

# ------------------------------------------------ multiply and divide ---
form imul r16,r16,i p1+p0156A lat=4              # 16-bit: extra merge µop
form imul r,r,i p1 lat=3
form imul r,r p1 lat=3                           # measured 3 (also r16)
form imul|mul r64 p1+p5 lat=3                    # rdx:rax <- rax * r64: rax after 3, rdx after 4 cycles (measured; kept 3)
form imul|mul r32 p1+p5+p0156A lat=4             # 3 µops (measured 4)
form imul|mul r16 p1+p5+2p0156A lat=4            # 4 µops
form imul|mul r8 p1 lat=3                        # ax <- al * r8
form mulx r64,r64,r64 p1+p5 lat=4                # low half 3, high half 4 (measured)
form mulx r32,r32,r32 p1+p06+p0156A lat=4        # LLVM SPR: 3 µops
# Integer division: a new, much faster divider on port 1 (a few µops instead
# of Skylake's microcode). Measured latency / throughput (typical operands):
# div r64 14 / 10, idiv r64 14 / 10, div r32 11 / 6, idiv r32 12, div r16
# 13, div r8 ~17. µop counts from LLVM SPR (r64: 3, r32/r16: 4, r8: 3).
form div|idiv r8 3p1 lat=17 div=6
form div|idiv r16 p0156A+3p1 lat=13 div=6
form div r32 p0156A+3p1 lat=11 div=6
form idiv r32 p0156A+3p1 lat=12 div=6
form div|idiv r64 3p1 lat=14 div=10

# -------------------------------------------------- shifts and rotates ---
# The key of a shift by 1 (D1 /n) and of a shift by cl (D3 /n) is the same
# ("shl r32"): the count operand is implicit in Zydis. With BMI2 compilers
# use shlx/shrx/sarx for variable counts, so the plain form is modelled as a
# shift by 1 (1 µop p06); rotates by cl or 1 are 2 µops (measured 1 per cycle).
form shl|shr|sar|rol|ror r,i p06                 # measured 2 per cycle, 1 cycle (also rol/ror by imm)
form shl|shr|sar r p06                           # by 1 (by cl would be 2 µops, measured ~1.7 cycles)
form rol|ror r 2p06 lat=2                        # by cl (measured 2 cycles); by 1 also 2 µops
form rcl|rcr r,i 8p0156A lat=6                   # rare: microcoded
form rcl|rcr r 3p06 lat=2                        # by 1
form shl|shr|sar|rol|ror m,* p06+p23B+p78+p49 fused=3   # RMW shift/rotate by imm or 1
form shlx|shrx|sarx r,r,r p06                    # measured 1 cycle (LLVM SPR says 3)
form rorx r,r,i p06
form shld|shrd r,r,i p1 lat=3                    # measured 3
form shld|shrd r,r p1+p06+p0156A lat=3           # by cl (key: count implicit); LLVM SPR 3 µops; measured 3
form shld|shrd m,* p1+p23B+p78+p49+p0156A lat=3

# ------------------------------------------------------ bit operations ---
# bt/bts/btr/btc on registers run on port 1 only on Golden Cove (LLVM SPR;
# measured 1 per cycle), 1 cycle.
form bt r,r p1
form bt r,i p1
form bts|btr|btc r,r p1
form bts|btr|btc r,i p1
form bt m,i p1+p23B
form bt m,r p23B+5p0156A+2p06+p1 lat=5           # bit string addressing: 9 µops (LLVM SPR)
form bts|btr|btc m,i p1+p23B+p78+p49 fused=3
form bts|btr|btc m,r p23B+p78+p49+4p0156A+2p06+p1 lat=5   # 10 µops (LLVM SPR)
form bsf|bsr r,r p1 lat=3
form lzcnt|tzcnt|popcnt r,r p1 lat=3             # measured 3 cycles, 1 per cycle
form andn r,r,r p15A                             # BMI1 on ports 1, 5, 10 (LLVM SPR; measured 3 per cycle, 1 cycle)
form blsi|blsr|blsmsk r,r p15A
form bzhi r,r,r p1                               # BMI2: measured 1 per cycle, 1 cycle
form bextr r,r,r p06+p1 lat=2                    # measured 2 cycles
form pdep|pext r,r,r p1 lat=3
form crc32 r,r p1 lat=3                          # SSE4.2

# ----------------------------------------------------- cmov and setcc ---
# Condition codes that read both CF and ZF (be/nbe = "a") need 2 µops.
form cmovbe|cmovnbe r,r 2p06                     # measured ~1.2 cycles from the data operand
form cmovo|cmovno|cmovb|cmovnb|cmovz|cmovnz|cmovs|cmovns|cmovp|cmovnp|cmovl|cmovnl|cmovle|cmovnle r,r p06
form setbe|setnbe r8 2p06 lat=2
form seto|setno|setb|setnb|setz|setnz|sets|setns|setp|setnp|setl|setnl|setle|setnle r8 p06

# ========================================================================
# Branches, calls and returns
# ========================================================================
form jo|jno|jb|jnb|jz|jnz|jbe|jnbe|js|jns|jp|jnp|jl|jnl|jle|jnle rel p06   # not-taken on p0 or p6, taken on p6; p06 kept
form jcxz|jecxz|jrcxz rel p0156A+p06 lat=2       # LLVM SPR: 2 µops
form loop rel 4p06+p1+2p0156A lat=3              # microcoded: 7 µops (LLVM SPR); rare
form loope|loopne rel 6p06+p1+4p0156A lat=3      # 11 µops
form jmp rel p6
form jmp r p6
form jmp m p23B+p6                               # micro-fused: 1 fused µop
form call rel p78+p49+p6                         # push of the return address + branch: 2 fused
form call r p78+p49+p6
form call m p23B+p78+p49+p6 fused=3
form ret - p23B+p6 fused=2                       # return stack predicts the target; 2 fused µops
form ret i p23B+p6+p0156A fused=3
form leave - p23B+2p0156A                        # mov rsp,rbp + pop rbp: 3 µops
form enter i,i 12p0156A+p78+p49 lat=8            # microcoded; rare

# ========================================================================
# NOPs, fences, atomics, prefetches, system
# ========================================================================
form nop - - lat=0 fused=1
form nop * - lat=0 fused=1                       # nop, nop r/m (multi-byte): no execution µop, one issue slot
form endbr64|endbr32 - - lat=0 fused=1           # CET landing pad: a NOP
form pause - 4p0156A lat=46                      # measured ~46 cycles per pause on SPR (Skylake-SP: ~140)
form lfence - 2p06 serial                        # waits for all older instructions
form mfence - p23B+p49+p06 serial                # drains the store buffer (measured ~45 cycles per mfence in a loop of them)
form sfence - p78+p49 serial                     # orders stores only; measured ~6 cycles
form prefetcht0|prefetcht1|prefetcht2|prefetchnta|prefetchw|prefetchwt1 m p23B lat=0   # a load µop without a destination
form clflush|clflushopt|clwb m p23B+p49+2p0156A
# Atomic read-modify-write: a locked instruction is a full memory barrier;
# measured ~20-21 cycles for lock add / lock xadd / lock cmpxchg / xchg m,r
# on SPR. Modelled as serial with that latency on the result register.
form lock.add|lock.sub|lock.and|lock.or|lock.xor|lock.adc|lock.sbb m,* p23B+p78+p49+5p0156A lat=20 serial
form lock.inc|lock.dec|lock.neg|lock.not m,* p23B+p78+p49+5p0156A lat=20 serial
form lock.xadd m,* p23B+p78+p49+6p0156A lat=20 serial
form lock.cmpxchg m,* p23B+p78+p49+7p0156A lat=21 serial
form lock.cmpxchg8b|lock.cmpxchg16b m p23B+p78+p49+16p0156A lat=32 serial   # LLVM SPR: cmpxchg16b 22 µops, 32 cycles
form lock.bts|lock.btr|lock.btc m,* p23B+p78+p49+8p0156A lat=20 serial
form xadd r,r 3p0156A lat=2                      # not locked
form xadd m,r p23B+p78+p49+3p0156A lat=2
form cmpxchg r,r 3p0156A+2p06 lat=3              # not locked; LLVM SPR 5 µops, 3 cycles
form cmpxchg m,r p23B+p78+p49+4p0156A lat=3
form cmpxchg8b|cmpxchg16b m p23B+p78+p49+14p0156A lat=25   # LLVM SPR: 16-22 µops, 25-32 cycles
form rdtsc - 15p0156A lat=56                     # 15 µops (LLVM SPR); measured one per ~56 cycles
form rdtscp - 21p0156A lat=70 serial             # 21 µops (LLVM SPR); measured one per ~70 cycles; waits for older instructions
form rdpmc - 18p0156A lat=40 serial
form rdrand|rdseed r 25p0156A lat=110            # ~25 µops (LLVM SPR); measured one rdrand per ~110 cycles (rdseed is slower)
form cpuid - 26p0156A lat=100 serial             # ~100+ cycles on bare metal; a VM exit (thousands of cycles) in a guest
form xgetbv - 15p0156A lat=10
form syscall|sysenter - 40p0156A lat=100 serial  # only the entry; the kernel is not simulated
form ud2|int3|hlt - p0156A serial
form xtest - 2p0156A                             # TSX (RTM) is disabled on most SPR parts
form xbegin rel 20p0156A lat=20 serial
form xend|xabort * 20p0156A lat=20 serial

# ========================================================================
# String instructions
# ========================================================================
# rep movs/stos use the fast-string microcode (ERMSB, FSRM on Golden Cove:
# fast short rep movsb): start-up of ~20-30 cycles, then up to 64 B per
# cycle. The model sees one instruction per call, so the forms model a
# typical short call of about 128 bytes: 4 line-sized loads/stores plus the
# microcode setup and a ~20-cycle latency on rcx/rsi/rdi (as in skx.mm).
form rep.movsb|rep.movsw|rep.movsd|rep.movsq - 4p23B+4p78+4p49+16p0156A lat=20 fused=24
form rep.stosb|rep.stosw|rep.stosd|rep.stosq - 4p78+4p49+16p0156A lat=20 fused=24
# repe/repne cmps/scas are not fast strings: ~2-3 cycles per element; a
# typical count of ~16 elements is modelled.
form repe.cmpsb|repe.cmpsw|repe.cmpsd|repe.cmpsq|repne.cmpsb|repne.cmpsw|repne.cmpsd|repne.cmpsq - 32p23B+32p0156A lat=40 fused=48
form repe.scasb|repe.scasw|repe.scasd|repe.scasq|repne.scasb|repne.scasw|repne.scasd|repne.scasq - 16p23B+32p0156A lat=40 fused=40
form rep.lodsb|rep.lodsw|rep.lodsd|rep.lodsq - 16p23B+32p0156A lat=40 fused=40
# single string instructions (no prefix): pointer updates are extra µops (LLVM SPR counts)
form movsb|movsw|movsd|movsq - p23B+p78+p49+4p0156A fused=7
form stosb|stosw|stosd|stosq - p78+p49+2p0156A fused=4
form lodsb|lodsw|lodsd|lodsq - p23B+2p0156A fused=3
form scasb|scasw|scasd|scasq - p23B+3p0156A fused=4
form cmpsb|cmpsw|cmpsd|cmpsq - 2p23B+5p0156A fused=7

# ========================================================================
# Vector moves, loads and stores (SSE, AVX, AVX-512)
# ========================================================================
# Register-to-register moves are eliminated at rename (measured: vmovaps +
# vaddps chain 2 cycles = the add alone; LLVM SPR: 0 µops also for zmm). A
# merge- or zero-masked EVEX move has the same key and is a p05 blend on the
# hardware; vmovdqu8/16 are only used with a mask in practice, so they are
# modelled as the blend.
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa|vmovdqu|vmovdqa32|vmovdqa64|vmovdqu32|vmovdqu64 v,v - lat=0 fused=1 elim
form movaps|movapd|movups|movupd|movdqa|movdqu x,x - lat=0 fused=1 elim
form vmovdqu8|vmovdqu16 z,z p05                  # measured 2 per cycle
form vmovdqu8|vmovdqu16 v,v p015
# Full-width loads: pure load µops. A masked EVEX load has the same key; on
# the hardware it is load + blend (LLVM: 2 µops).
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa|vmovdqu|vmovdqa32|vmovdqa64|vmovdqu8|vmovdqu16|vmovdqu32|vmovdqu64|vmovntdqa|vlddqu v,m p23B lat=0
form movaps|movapd|movups|movupd|movdqa|movdqu|movntdqa|lddqu x,m p23B lat=0
# 512-bit stores: one per cycle (64 B/cycle to L1), written with two
# store-data slots; 128/256-bit stores: two per cycle.
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa32|vmovdqa64|vmovdqu8|vmovdqu16|vmovdqu32|vmovdqu64|vmovntps|vmovntpd|vmovntdq m,z p78+2p49 fused=1
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa|vmovdqu|vmovdqa32|vmovdqa64|vmovdqu8|vmovdqu16|vmovdqu32|vmovdqu64 m,v p78+p49
form movaps|movapd|movups|movupd|movdqa|movdqu m,x p78+p49
form vmovntps|vmovntpd|vmovntdq|movntps|movntpd|movntdq m,v p78+p49   # non-temporal stores (write-combining: the line is not read)
# Scalar and 64-bit loads and stores
form vmovss|vmovsd|movss|movsd|vmovd|vmovq|movd|movq x,m p23B lat=0
form vmovss|vmovsd|movss|movsd|vmovd|vmovq|movd|movq m,x p78+p49
form vmovss|vmovsd x,x,x p015                    # merge of the low element: any vector ALU on GLC (measured 3 per cycle, 1 cycle)
form movss|movsd x,x p015
form vmovq|movq x,x p015                         # copy the low 64 bits, zero the rest
form vmovw x,m p23B lat=0                        # AVX512-FP16 16-bit moves: as vmovd
form vmovw m,x p78+p49
form vmovw x,r p5 lat=2
form vmovw r,x p0 lat=2
form vmovd|vmovq|movd|movq x,r p5 lat=2          # GPR -> xmm (measured 1 per cycle; round trip r->x->r 4 cycles)
form vmovd|vmovq|movd|movq r,x p0 lat=2          # xmm -> GPR
form vmovlps|vmovlpd x,x,m p15+p23B              # load into the low half: load + in-lane shuffle on p15 (LLVM SPR; measured 2 per cycle)
form movlps|movlpd x,m p15+p23B
form vmovhps|vmovhpd x,x,m p5+p23B               # load into the high half: load + p5 shuffle (measured 1 per cycle)
form movhps|movhpd x,m p5+p23B
form vmovlps|vmovhps|vmovlpd|vmovhpd|movlps|movhps|movlpd|movhpd m,x p78+p49   # store of a half: no shuffle
form vmovhlps|vmovlhps x,x,x p5                  # measured p5 (1 per cycle)
form movhlps|movlhps x,x p5
form vmovddup|vmovsldup|vmovshdup|movddup|movsldup|movshdup v,m p23B lat=0   # the load unit duplicates
form vmovsldup|vmovshdup z,z p5                 # zmm: shuffle unit on port 5 only
form vmovsldup|vmovshdup|movsldup|movshdup v,v p15   # measured 2 per cycle at x and y
form vmovddup|movddup v,v p5
# Masked loads and stores (AVX vmaskmov: load + blend; store needs the mask on p0)
form vmaskmovps|vmaskmovpd|vpmaskmovd|vpmaskmovq v,v,m p015+p23B
form vmaskmovps|vmaskmovpd|vpmaskmovd|vpmaskmovq m,v,v p0+p78+p49
form maskmovdqu|vmaskmovdqu x,x 10p0156A+p78+p49 lat=6   # byte-masked NT store: microcoded, rare

# ------------------------------------------------------- broadcasts ---
# 32/64/128/256-bit broadcasts from memory are done by the load unit (one
# load µop); byte and word broadcasts need a shuffle µop as well.
form vbroadcastss|vbroadcastsd|vbroadcastf128|vbroadcasti128|vbroadcastf32x4|vbroadcastf64x4|vbroadcasti32x4|vbroadcasti64x4|vbroadcastf32x8|vbroadcasti32x8|vbroadcastf64x2|vbroadcasti64x2|vpbroadcastd|vpbroadcastq v,m p23B lat=0
form vbroadcastf32x2|vbroadcasti32x2 v,m p5+p23B lat=1
form vpbroadcastb|vpbroadcastw v,m p5+p23B lat=1   # measured 1 per cycle (p5)
form vbroadcastss|vbroadcastsd|vpbroadcastb|vpbroadcastw|vpbroadcastd|vpbroadcastq|vbroadcasti32x2|vbroadcastf32x2 x,x p5   # measured p5, 1 cycle
form vbroadcastss|vbroadcastsd|vpbroadcastb|vpbroadcastw|vpbroadcastd|vpbroadcastq|vbroadcasti32x2|vbroadcastf32x2 v,x p5 lat=3   # lane-crossing (measured 3)
form vpbroadcastb|vpbroadcastw|vpbroadcastd|vpbroadcastq v,r p5 lat=3   # EVEX broadcast from a GPR
form vpbroadcastmb2q|vpbroadcastmw2d v,k p5

# ========================================================================
# FP arithmetic (packed and scalar)
# ========================================================================
# Add/sub run on the dedicated FADD units of ports 1 and 5 with 2 cycles at
# xmm/ymm (Golden Cove; measured 2.0 for vaddpd/vaddsd/addsd/vsubpd/
# vaddsubpd chains). At zmm the adds use the 512-bit units on p0 and p5:
# measured 3.3-3.5 per add in a chain, LLVM SPR 3: lat=3 kept.
form vaddps|vaddpd|vsubps|vsubpd z,z,z p05 lat=3
form vaddps|vaddpd|vsubps|vsubpd z,z,mb p05+p23B lat=3
form vaddps|vaddpd|vsubps|vsubpd v,v,mb p15+p23B lat=2
form vaddps|vaddpd|vsubps|vsubpd|vaddsubps|vaddsubpd|vaddss|vaddsd|vsubss|vsubsd v,v,v p15 lat=2
form addps|addpd|subps|subpd|addsubps|addsubpd|addss|addsd|subss|subsd x,x p15 lat=2
# Mul/min/max/scalef: the FMA units, 4 cycles, p01 at xmm/ymm, p05 at zmm
# (measured vmulpd x/z, vmaxpd x/z, vminsd: 4).
form vmulps|vmulpd|vminps|vminpd|vmaxps|vmaxpd|vscalefps|vscalefpd z,z,z p05 lat=4
form vmulps|vmulpd|vminps|vminpd|vmaxps|vmaxpd|vscalefps|vscalefpd z,z,mb p05+p23B lat=4
form vmulps|vmulpd|vminps|vminpd|vmaxps|vmaxpd|vscalefps|vscalefpd v,v,mb p01+p23B lat=4
form vmulps|vmulpd|vminps|vminpd|vmaxps|vmaxpd|vscalefps|vscalefpd|vmulss|vmulsd|vminss|vminsd|vmaxss|vmaxsd|vscalefss|vscalefsd|vgetexpss|vgetexpsd v,v,v p01 lat=4
form mulps|mulpd|minps|minpd|maxps|maxpd|mulss|mulsd|minss|minsd|maxss|maxsd x,x p01 lat=4
# Scalar forms with a 32/64-bit memory operand are written out so that they
# do not depend on how a narrow memory operand of a vector instruction is
# widened by the derivation rule.
form vaddss|vaddsd|vsubss|vsubsd x,x,m p15+p23B lat=2
form addss|addsd|subss|subsd x,m p15+p23B lat=2
form vmulss|vmulsd|vminss|vminsd|vmaxss|vmaxsd|vscalefss|vscalefsd|vgetexpss|vgetexpsd x,x,m p01+p23B lat=4
form mulss|mulsd|minss|minsd|maxss|maxsd x,m p01+p23B lat=4
# FMA3: all forms 4 cycles, p01 / p05 (measured 4 at xmm and zmm)
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd z,z,z p05 lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd z,z,z p05 lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd z,z,z p05 lat=4
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd z,z,mb p05+p23B lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd z,z,mb p05+p23B lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd z,z,mb p05+p23B lat=4
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd v,v,mb p01+p23B lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd v,v,mb p01+p23B lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd v,v,mb p01+p23B lat=4
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd v,v,v p01 lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd v,v,v p01 lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd v,v,v p01 lat=4
form vfmadd132ss|vfmadd213ss|vfmadd231ss|vfmadd132sd|vfmadd213sd|vfmadd231sd|vfmsub132ss|vfmsub213ss|vfmsub231ss|vfmsub132sd|vfmsub213sd|vfmsub231sd x,x,x p01 lat=4
form vfnmadd132ss|vfnmadd213ss|vfnmadd231ss|vfnmadd132sd|vfnmadd213sd|vfnmadd231sd|vfnmsub132ss|vfnmsub213ss|vfnmsub231ss|vfnmsub132sd|vfnmsub213sd|vfnmsub231sd x,x,x p01 lat=4
form vfnmadd132ss|vfnmadd213ss|vfnmadd231ss|vfnmadd132sd|vfnmadd213sd|vfnmadd231sd|vfnmsub132ss|vfnmsub213ss|vfnmsub231ss|vfnmsub132sd|vfnmsub213sd|vfnmsub231sd x,x,m p01+p23B lat=4
form vfmadd132ss|vfmadd213ss|vfmadd231ss|vfmadd132sd|vfmadd213sd|vfmadd231sd|vfmsub132ss|vfmsub213ss|vfmsub231ss|vfmsub132sd|vfmsub213sd|vfmsub231sd x,x,m p01+p23B lat=4
# AVX-512 FP helpers: getexp/getmant/fixupimm/range 4 cycles on the FMA
# units (measured 4 at zmm); reduce and roundscale are 2 µops / 8 cycles.
form vgetexpps|vgetexppd z,z p05 lat=4
form vgetexpps|vgetexppd z,mb p05+p23B lat=4
form vgetexpps|vgetexppd v,mb p01+p23B lat=4
form vgetexpps|vgetexppd v,v p01 lat=4
form vgetmantps|vgetmantpd z,z,i p05 lat=4
form vgetmantps|vgetmantpd z,mb,i p05+p23B lat=4
form vgetmantps|vgetmantpd v,mb,i p01+p23B lat=4
form vgetmantps|vgetmantpd v,v,i p01 lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd z,z,z,i p05 lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd z,z,mb,i p05+p23B lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd v,v,mb,i p01+p23B lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd|vfixupimmss|vfixupimmsd|vrangess|vrangesd|vgetmantss|vgetmantsd v,v,v,i p01 lat=4
# FP compares into a vector register (VEX/legacy): p01, 4 cycles (measured)
form vcmpps|vcmppd|vcmpss|vcmpsd v,v,v,i p01 lat=4
form cmpps|cmppd|cmpss|cmpsd x,x,i p01 lat=4
# FP compares into a mask register (EVEX) and classification: p5, 3 cycles
form vcmpps|vcmppd|vcmpss|vcmpsd k,v,v,i p5 lat=3
form vcmpps|vcmppd k,v,mb,i p5+p23B lat=3
form vfpclassps|vfpclasspd|vfpclassss|vfpclasssd k,v,i p5 lat=3
form vfpclassps|vfpclasspd k,mb,i p5+p23B lat=3
form vcomiss|vcomisd|vucomiss|vucomisd|comiss|comisd|ucomiss|ucomisd x,x p0 lat=3   # to EFLAGS
form vcomiss|vcomisd|vucomiss|vucomisd|comiss|comisd|ucomiss|ucomisd x,m p0+p23B lat=3

# ------------------------------------------- FP division and square root ---
# One divider on port 0 (resource DIV). Measured latency / cycles per
# instruction: divss/divps x 11 / 3, divps y 11 / 5, divps z 17-18 / 10;
# divsd/divpd x 13 / 4, divpd y 13 / 8, divpd z 24 / 16; sqrtss/sqrtps x
# 12 / 3, sqrtps y 12 / 6, sqrtps z 18-19 / 12; sqrtsd/sqrtpd x 13 / 4.5,
# sqrtpd y 13 / 9, sqrtpd z 24 / 17. zmm forms are 3 µops (2 on p0, 1 on
# p05; LLVM SPR).
form vdivps z,z,z 2p0+p05 lat=18 div=10
form vdivps z,z,mb 2p0+p05+p23B lat=18 div=10
form vdivpd z,z,z 2p0+p05 lat=24 div=16
form vdivpd z,z,mb 2p0+p05+p23B lat=24 div=16
form vsqrtps z,z 2p0+p05 lat=19 div=12
form vsqrtps z,mb 2p0+p05+p23B lat=19 div=12
form vsqrtpd z,z 2p0+p05 lat=24 div=17
form vsqrtpd z,mb 2p0+p05+p23B lat=24 div=17
form vdivps y,y,y p0 lat=11 div=5
form vdivps y,y,mb p0+p23B lat=11 div=5
form vdivpd y,y,y p0 lat=13 div=8
form vdivpd y,y,mb p0+p23B lat=13 div=8
form vsqrtps y,y p0 lat=12 div=6
form vsqrtps y,mb p0+p23B lat=12 div=6
form vsqrtpd y,y p0 lat=13 div=9
form vsqrtpd y,mb p0+p23B lat=13 div=9
form vdivss x,x,m p0+p23B lat=11 div=3
form divss x,m p0+p23B lat=11 div=3
form vdivsd x,x,m p0+p23B lat=13 div=4
form divsd x,m p0+p23B lat=13 div=4
form vsqrtss x,x,m p0+p23B lat=12 div=3
form sqrtss x,m p0+p23B lat=12 div=3
form vsqrtsd x,x,m p0+p23B lat=13 div=4.5
form sqrtsd x,m p0+p23B lat=13 div=4.5
form vdivps|vdivss x,x,x p0 lat=11 div=3
form vdivps x,x,mb p0+p23B lat=11 div=3
form divps|divss x,x p0 lat=11 div=3
form vdivpd|vdivsd x,x,x p0 lat=13 div=4
form vdivpd x,x,mb p0+p23B lat=13 div=4
form divpd|divsd x,x p0 lat=13 div=4
form vsqrtps|sqrtps|sqrtss x,x p0 lat=12 div=3
form vsqrtps x,mb p0+p23B lat=12 div=3
form vsqrtss x,x,x p0 lat=12 div=3
form vsqrtpd|sqrtpd|sqrtsd x,x p0 lat=13 div=4.5
form vsqrtpd x,mb p0+p23B lat=13 div=4.5
form vsqrtsd x,x,x p0 lat=13 div=4.5
# Approximations: rcp/rsqrt 4 cycles on p0 (measured); the 14-bit AVX-512
# forms at zmm are 3 µops, 6 cycles (measured vrcp14ps/vrsqrt14ps z: 6).
form vrcpps|vrsqrtps|rcpps|rsqrtps|rcpss|rsqrtss v,v p0 lat=4
form vrcpss|vrsqrtss x,x,x p0 lat=4
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd z,z 2p0+p05 lat=6
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd z,mb 2p0+p05+p23B lat=6
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd v,mb p0+p23B lat=4
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd v,v p0 lat=4
form vrcp14ss|vrcp14sd|vrsqrt14ss|vrsqrt14sd x,x,x p0 lat=4

# ------------------------------------------------------------ rounding ---
# 2 µops, 8 cycles (measured vroundpd x 8, vrndscalepd z 8)
form vroundps|vroundpd|vroundss|vroundsd|vrndscaless|vrndscalesd|vreducess|vreducesd x,x,x,i 2p01 lat=8
form vroundss|vroundsd|vrndscaless|vrndscalesd|vreducess|vreducesd x,x,m,i 2p01+p23B lat=8
form roundss|roundsd x,m,i 2p01+p23B lat=8
form vrndscaleps|vrndscalepd|vreduceps|vreducepd z,z,i 2p05 lat=8
form vrndscaleps|vrndscalepd|vreduceps|vreducepd z,mb,i 2p05+p23B lat=8
form vrndscaleps|vrndscalepd|vreduceps|vreducepd v,mb,i 2p01+p23B lat=8
form vroundps|vroundpd|vrndscaleps|vrndscalepd|vreduceps|vreducepd v,v,i 2p01 lat=8
form roundps|roundpd|roundss|roundsd x,x,i 2p01 lat=8

# ---------------------------------------------------------- FP logic ---
# and/andn/or/xor/blend on the vector ALUs p015 (p05 at zmm), 1 cycle.
# xorps/xorpd of a register with itself is a zero idiom (no µop).
form vxorps|vxorpd z,z,z p05 zero-idiom
form vxorps|vxorpd v,v,v p015 zero-idiom
form xorps|xorpd x,x p015 zero-idiom
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vblendmps|vblendmpd z,z,z p05
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vxorps|vxorpd|vblendmps|vblendmpd z,z,mb p05+p23B
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vxorps|vxorpd|vblendmps|vblendmpd v,v,mb p015+p23B
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vblendmps|vblendmpd v,v,v p015
form andps|andpd|andnps|andnpd|orps|orpd x,x p015
form vblendps|vblendpd v,v,v,i p015
form blendps|blendpd x,x,i p015
# AVX 4-operand blendv: 3 µops on Golden Cove (LLVM SPR; measured 1 per 3
# cycles per port-group, 2 cycles from the data and 3 from the mask operand:
# 3 kept). The SSE4.1 forms with the implicit xmm0 mask are 1 µop, 1 cycle.
form vblendvps|vblendvpd|vpblendvb v,v,v,v 3p015 lat=3
form blendvps|blendvpd|pblendvb x,x p015

# ------------------------------------------------ horizontal FP and dot ---
form vhaddps|vhaddpd|vhsubps|vhsubpd v,v,v 2p5+p15 lat=5   # 2 shuffles + FADD (LLVM SPR; measured 5)
form haddps|haddpd|hsubps|hsubpd x,x 2p5+p15 lat=5
form vdpps v,v,v,i 2p01+p06+2p15+p5 lat=15       # LLVM SPR 6 µops; measured 15 cycles, one per 4
form dpps x,x,i 2p01+p06+2p15+p5 lat=15
form vdppd x,x,x,i 2p01+p15 lat=9                # measured 9
form dppd x,x,i 2p01+p15 lat=9

# ========================================================================
# Conversions
# ========================================================================
# Same-width int<->float conversions: one FP µop, 4 cycles (measured).
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq z,z p05 lat=4
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq z,mb p05+p23B lat=4
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq v,mb p01+p23B lat=4
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq v,v p01 lat=4
form cvtdq2ps|cvtps2dq|cvttps2dq x,x p01 lat=4
# Half-precision conversions: 2 µops, 6 cycles within xmm, 8 crossing lanes
# (LLVM SPR; measured vcvtph2ps y and vcvtps2ph x,y 8).
form vcvtph2ps|vcvtph2psx x,x p01+p5 lat=6
form vcvtph2ps|vcvtph2psx y,x p01+p5 lat=8
form vcvtph2psx z,y p05+p5 lat=8                 # AVX512-FP16 form of vcvtph2ps
form vcvtps2ph x,x,i p01+p5 lat=6
form vcvtps2ph x,y,i p01+p5 lat=8
form vcvtps2ph y,z,i p05+p5 lat=8
form vcvtps2ph m,v,i p01+p5+p78+p49              # convert and store
# Width-changing conversions: FP µop + shuffle µop, 5 cycles within xmm,
# 7 cycles when crossing 128-bit lanes (measured 5 and 7).
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps|vcvtph2ps z,v p05+p5 lat=7
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps v,z p05+p5 lat=7
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq z,mb p05+p5+p23B lat=7
form vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtqq2ps|vcvtuqq2ps y,mb p05+p5+p23B lat=7
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps v,mb p01+p5+p23B lat=5
# Widening conversions from memory: the load delivers the half-width source,
# no shuffle µop (LLVM SPR: 2 µops, load latency + 4-5).
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtph2ps z,m p05+p23B lat=4
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtph2ps|cvtps2pd|cvtdq2pd v,m p01+p23B lat=4
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps x,x p01+p5 lat=5
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps v,v p01+p5 lat=7
form cvtps2pd|cvtdq2pd|cvtpd2ps|cvtpd2dq|cvttpd2dq x,x p01+p5 lat=5
# Scalar float<->double: 2 µops, 5 cycles (measured); from memory the
# shuffle is not needed.
form vcvtss2sd|vcvtsd2ss x,x,m p01+p23B lat=4
form vcvtss2sd|vcvtsd2ss x,x,x p01+p5 lat=5
form cvtss2sd|cvtsd2ss x,m p01+p23B lat=4
form cvtss2sd|cvtsd2ss x,x p01+p5 lat=5
# int -> float scalar (GPR source): measured 6 cycles from the GPR (7 for
# r64 -> single, 3 µops); memory source: load + convert (no shuffle)
form vcvtsi2ss|vcvtusi2ss x,x,r64 p01+2p5 lat=7
form vcvtsi2ss|vcvtsi2sd|vcvtusi2ss|vcvtusi2sd x,x,r p01+p5 lat=6
form vcvtsi2ss|vcvtsi2sd|vcvtusi2ss|vcvtusi2sd x,x,m p01+p23B lat=4
form cvtsi2ss x,r64 p01+2p5 lat=7
form cvtsi2ss|cvtsi2sd x,r p01+p5 lat=6
form cvtsi2ss|cvtsi2sd x,m p01+p23B lat=4
# float -> int scalar (GPR destination): 2 µops, 6 cycles (7 for single ->
# r64, 3 µops; measured)
form vcvtss2si|vcvttss2si|vcvtss2usi|vcvttss2usi|cvtss2si|cvttss2si r64,x p0+p01+p5 lat=7
form vcvtsd2si|vcvttsd2si|vcvtss2si|vcvttss2si|vcvtsd2usi|vcvttsd2usi|vcvtss2usi|vcvttss2usi|cvtsd2si|cvttsd2si|cvtss2si|cvttss2si r,x p0+p01 lat=6
form vcvtsd2si|vcvttsd2si|vcvtss2si|vcvttss2si|vcvtsd2usi|vcvttsd2usi|vcvtss2usi|vcvttss2usi|cvtsd2si|cvttsd2si|cvtss2si|cvttss2si r,m p0+p01+p23B lat=6

# ========================================================================
# Integer SIMD
# ========================================================================
# Zero idioms: pxor/vpxor[dq], psub* and pcmpgt{b,w,d} of a register with
# itself are recognized at rename and execute no µop. pcmpeq of a register
# with itself (all-ones idiom) breaks the dependency but still executes a
# p01 µop; the format cannot say "dependency-breaking but executed", and the
# idiom matters mostly for the all-ones mask rebuilt before every AVX2
# gather (the gather clears its mask), where a false dependency would chain
# the gathers. So it is written as an idiom (measured: `vpmulld ymm2,..;
# vpcmpeqd ymm2,ymm2,ymm2` runs at 1.5 cycles, not 11).
form vpxor|vpxord|vpxorq|vpsubb|vpsubw|vpsubd|vpsubq z,z,z p05 zero-idiom
form vpxor|vpxord|vpxorq|vpsubb|vpsubw|vpsubd|vpsubq v,v,v p015 zero-idiom
form pxor|psubb|psubw|psubd|psubq x,x p015 zero-idiom
form vpcmpgtb|vpcmpgtw|vpcmpgtd v,v,v p01 zero-idiom   # VEX form: into a vector register (the EVEX form writes k, below)
form pcmpgtb|pcmpgtw|pcmpgtd x,x p01 zero-idiom
form vpcmpeqb|vpcmpeqw|vpcmpeqd|vpcmpeqq v,v,v p01 zero-idiom   # all-ones idiom, see above
form pcmpeqb|pcmpeqw|pcmpeqd|pcmpeqq x,x p01 zero-idiom
# Simple integer ALU: add/sub/logic/ternlog/blend, p015 (p05 at zmm), 1 cycle
# (measured 3 per cycle at xmm, 2 at zmm)
form vpaddb|vpaddw|vpaddd|vpaddq|vpand|vpandd|vpandq|vpandn|vpandnd|vpandnq|vpor|vpord|vporq|vpblendmb|vpblendmw|vpblendmd|vpblendmq z,z,z p05
form vpaddd|vpaddq|vpsubd|vpsubq|vpandd|vpandq|vpandnd|vpandnq|vpord|vporq|vpxord|vpxorq|vpblendmd|vpblendmq z,z,mb p05+p23B
form vpaddd|vpaddq|vpsubd|vpsubq|vpandd|vpandq|vpandnd|vpandnq|vpord|vporq|vpxord|vpxorq|vpblendmd|vpblendmq v,v,mb p015+p23B
form vpaddb|vpaddw|vpaddd|vpaddq|vpand|vpandd|vpandq|vpandn|vpandnd|vpandnq|vpor|vpord|vporq|vpblendmb|vpblendmw|vpblendmd|vpblendmq v,v,v p015
form paddb|paddw|paddd|paddq|pand|pandn|por x,x p015
form vpternlogd|vpternlogq z,z,z,i p05
form vpternlogd|vpternlogq z,z,mb,i p05+p23B
form vpternlogd|vpternlogq v,v,mb,i p015+p23B
form vpternlogd|vpternlogq v,v,v,i p015
form vpblendd v,v,v,i p015
form vpblendw z,z,z,i p5
form vpblendw v,v,v,i p15                         # word blend: second shuffle unit too on GLC (LLVM SPR; measured 2 per cycle)
form pblendw x,x,i p15
form vpmovm2b|vpmovm2w|vpmovm2d|vpmovm2q z,k p05   # mask -> vector (measured 2 per cycle)
form vpmovm2b|vpmovm2w|vpmovm2d|vpmovm2q v,k p015
form vpmovb2m|vpmovw2m|vpmovd2m|vpmovq2m k,v p0    # vector -> mask
# 64-bit min/max (AVX-512) run on the shuffle port on Golden Cove: p5, 3
# cycles at every width (LLVM SPR; measured x and z: 3 cycles, 1 per cycle).
form vpminsq|vpminuq|vpmaxsq|vpmaxuq v,v,v p5 lat=3
form vpminsq|vpminuq|vpmaxsq|vpmaxuq v,v,mb p5+p23B lat=3
# "p01-class" integer ops: min/max/abs/avg/saturating add-sub/sign/compare
# into a vector, 1 cycle on p01 at xmm/ymm and on p0 only at zmm (measured).
form vpminsb|vpminsw|vpminsd|vpminub|vpminuw|vpminud|vpmaxsb|vpmaxsw|vpmaxsd|vpmaxub|vpmaxuw|vpmaxud z,z,z p0
form vpavgb|vpavgw|vpaddsb|vpaddsw|vpaddusb|vpaddusw|vpsubsb|vpsubsw|vpsubusb|vpsubusw z,z,z p0
form vpminsd|vpminud|vpmaxsd|vpmaxud z,z,mb p0+p23B
form vpminsd|vpminud|vpmaxsd|vpmaxud v,v,mb p01+p23B
form vpminsb|vpminsw|vpminsd|vpminub|vpminuw|vpminud|vpmaxsb|vpmaxsw|vpmaxsd|vpmaxub|vpmaxuw|vpmaxud v,v,v p01
form vpavgb|vpavgw|vpaddsb|vpaddsw|vpaddusb|vpaddusw|vpsubsb|vpsubsw|vpsubusb|vpsubusw|vpsignb|vpsignw|vpsignd v,v,v p01
form pminsb|pminsw|pminsd|pminub|pminuw|pminud|pmaxsb|pmaxsw|pmaxsd|pmaxub|pmaxuw|pmaxud|pavgb|pavgw|paddsb|paddsw|paddusb|paddusw|psubsb|psubsw|psubusb|psubusw|psignb|psignw|psignd x,x p01
form vpabsb|vpabsw|vpabsd|vpabsq z,z p0
form vpabsd|vpabsq z,mb p0+p23B
form vpabsd|vpabsq v,mb p01+p23B
form vpabsb|vpabsw|vpabsd|vpabsq v,v p01
form pabsb|pabsw|pabsd x,x p01
form vpcmpgtq v,v,v p5 lat=3                      # 64-bit compare: p5, 3 cycles (measured)
form pcmpgtq x,x p5 lat=3
# Compares and tests into a mask register (EVEX): p5, 3 cycles
form vpcmpeqb|vpcmpeqw|vpcmpeqd|vpcmpeqq|vpcmpgtb|vpcmpgtw|vpcmpgtd|vpcmpgtq|vptestmb|vptestmw|vptestmd|vptestmq|vptestnmb|vptestnmw|vptestnmd|vptestnmq k,v,v p5 lat=3
form vpcmpeqd|vpcmpeqq|vpcmpgtd|vpcmpgtq|vptestmd|vptestmq|vptestnmd|vptestnmq k,v,mb p5+p23B lat=3
form vpcmpb|vpcmpw|vpcmpd|vpcmpq|vpcmpub|vpcmpuw|vpcmpud|vpcmpuq k,v,v,i p5 lat=3
form vpcmpd|vpcmpq|vpcmpud|vpcmpuq k,v,mb,i p5+p23B lat=3
form vptest|vtestps|vtestpd|ptest v,v p0+p5 lat=3  # to EFLAGS (measured vptest + setz: 3 + 1)

# -------------------------------------------------------------- shifts ---
# By immediate and by a per-element count: p01 (p0 at zmm), 1 cycle.
# By a count in an xmm register: 2 µops (the count is broadcast on p15 at
# xmm, p5 at ymm/zmm; LLVM SPR); measured 1 cycle from the shifted operand
# (the count is usually loop-invariant).
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq z,z,x p0+p5
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq y,y,x p01+p5
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq x,x,x p01+p15
form psllw|pslld|psllq|psrlw|psrld|psrlq|psraw|psrad x,x p01+p15
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq z,z,i p0
form vpslld|vpsllq|vpsrld|vpsrlq|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq z,mb,i p0+p23B
form vpslld|vpsllq|vpsrld|vpsrlq|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq v,mb,i p01+p23B
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq v,v,i p01
form psllw|pslld|psllq|psrlw|psrld|psrlq|psraw|psrad x,i p01
form vpsllvw|vpsllvd|vpsllvq|vpsrlvw|vpsrlvd|vpsrlvq|vpsravw|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq z,z,z p0
form vpsllvd|vpsllvq|vpsrlvd|vpsrlvq|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq z,z,mb p0+p23B
form vpsllvd|vpsllvq|vpsrlvd|vpsrlvq|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq v,v,mb p01+p23B
form vpsllvw|vpsllvd|vpsllvq|vpsrlvw|vpsrlvd|vpsrlvq|vpsravw|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq v,v,v p01
form vpslldq|vpsrldq z,z,i p5                     # byte shifts are shuffles
form vpslldq|vpsrldq v,v,i p15                    # in-lane: both shuffle units (measured 2 per cycle)
form pslldq|psrldq x,i p15

# ------------------------------------------------------------ multiply ---
form vpmullw|vpmulhw|vpmulhuw|vpmulhrsw|vpmuludq|vpmuldq|vpmaddwd|vpmaddubsw z,z,z p05 lat=5
form vpmuludq|vpmuldq z,z,mb p05+p23B lat=5
form vpmuludq|vpmuldq v,v,mb p01+p23B lat=5
form vpmullw|vpmulhw|vpmulhuw|vpmulhrsw|vpmuludq|vpmuldq|vpmaddwd|vpmaddubsw v,v,v p01 lat=5
form pmullw|pmulhw|pmulhuw|pmulhrsw|pmuludq|pmuldq|pmaddwd|pmaddubsw x,x p01 lat=5
# VNNI dot products (AVX512_VNNI and AVX-VNNI): same units as vpmaddwd
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds z,z,z p05 lat=5
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds z,z,mb p05+p23B lat=5
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds v,v,mb p01+p23B lat=5
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds v,v,v p01 lat=5
form vpmulld z,z,z 2p05 lat=10                    # 2 µops, 10 cycles (measured 10-11)
form vpmulld z,z,mb 2p05+p23B lat=10
form vpmulld v,v,mb 2p01+p23B lat=10
form vpmulld v,v,v 2p01 lat=10
form pmulld x,x 2p01 lat=10
form vpmullq z,z,z 3p0 lat=15                     # AVX512DQ: 3 µops, 15 cycles; measured one per ~3 cycles at zmm (port 0 only)
form vpmullq z,z,mb 3p0+p23B lat=15
form vpmullq v,v,mb 3p01+p23B lat=15
form vpmullq v,v,v 3p01 lat=15
form vpclmulqdq v,v,v,i p5 lat=3                  # measured 3 cycles, 1 per cycle (Skylake: 6)
form pclmulqdq x,x,i p5 lat=3
form vpsadbw v,v,v p5 lat=3
form vdbpsadbw v,v,v,i p5 lat=3
form psadbw x,x p5 lat=3
form vmpsadbw v,v,v,i p15+p5 lat=3               # LLVM SPR 2 µops; measured 3 cycles
form mpsadbw x,x,i p15+p5 lat=3
form vphminposuw|phminposuw x,x p0 lat=4
form vphaddw|vphaddd|vphaddsw|vphsubw|vphsubd|vphsubsw v,v,v 2p5+p015 lat=2   # 3 µops; measured ~2.4 cycles (LLVM SPR 2)
form phaddw|phaddd|phaddsw|phsubw|phsubd|phsubsw x,x 2p5+p015 lat=2
form vplzcntd|vplzcntq z,z p05 lat=4              # AVX512CD: measured 4 cycles, 2 per cycle
form vplzcntd|vplzcntq z,mb p05+p23B lat=4
form vplzcntd|vplzcntq v,mb p01+p23B lat=4
form vplzcntd|vplzcntq v,v p01 lat=4
form vpconflictd z,z 17p5+20p05 lat=27            # microcoded: measured 27 cycles, one per ~21
form vpconflictq z,z 9p5+13p05 lat=17
form vpconflictd|vpconflictq v,v 9p5+12p015 lat=17   # measured ymm 17
form vpopcntb|vpopcntw|vpopcntd|vpopcntq v,v p5 lat=3   # AVX512_BITALG / VPOPCNTDQ: measured 3 cycles, 1 per cycle at y and z
form vpopcntd|vpopcntq v,mb p5+p23B lat=3

# ------------------------------------------------------------ shuffles ---
# Golden Cove has a second shuffle unit on port 1 for in-lane integer
# shuffles at xmm/ymm (pshufb, pshufd/lw/hw, punpck*, pslldq, pmovzx/sx
# xmm, pblendw) and for shufps/shufpd and movsldup/movshdup (LLVM SPR,
# measured 2 per cycle). The FP shuffles unpck*ps/pd, vpermilps/pd,
# insertps, movddup, movhlps and palignr/pack* stay on p5 (measured 1 per
# cycle). At zmm all shuffles are p5. In-lane shuffles take 1 cycle; packs
# 3 (measured).
form vpshufb|vpunpcklbw|vpunpckhbw|vpunpcklwd|vpunpckhwd|vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq z,z,z p5
form vpshufb|vpunpcklbw|vpunpckhbw|vpunpcklwd|vpunpckhwd|vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq v,v,v p15
form vpermilps|vpermilpd|vunpcklps|vunpckhps|vunpcklpd|vunpckhpd v,v,v p5
form vpacksswb|vpackssdw|vpackuswb|vpackusdw v,v,v p5 lat=3
form vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq z,z,mb p5+p23B
form vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq v,v,mb p15+p23B
form vpermilps|vpermilpd|vunpcklps|vunpckhps|vunpcklpd|vunpckhpd v,v,mb p5+p23B
form vpackssdw|vpackusdw v,v,mb p5+p23B lat=3
form vinsertps x,x,m,i p5+p23B
form insertps x,m,i p5+p23B
form vshufps|vshufpd z,z,z,i p5
form vshufps|vshufpd v,v,v,i p15                  # measured 2 per cycle at x and y
form vpalignr|vinsertps v,v,v,i p5
form vshufps|vshufpd z,z,mb,i p5+p23B
form vshufps|vshufpd v,v,mb,i p15+p23B
form vpshufd|vpshuflw|vpshufhw z,z,i p5
form vpshufd|vpshuflw|vpshufhw v,v,i p15
form vpermilps|vpermilpd v,v,i p5
form vpshufd z,mb,i p5+p23B
form vpshufd v,mb,i p15+p23B
form vpermilps|vpermilpd v,mb,i p5+p23B
form pshufb|punpcklbw|punpckhbw|punpcklwd|punpckhwd|punpckldq|punpckhdq|punpcklqdq|punpckhqdq x,x p15
form unpcklps|unpckhps|unpcklpd|unpckhpd x,x p5
form packsswb|packssdw|packuswb|packusdw x,x p5 lat=3
form shufps|shufpd|pshufd|pshuflw|pshufhw x,x,i p15
form palignr|insertps x,x,i p5
# Lane-crossing shuffles: 1 µop on p5, 3 cycles (measured). Word and byte
# permutes are single µops on Golden Cove (Skylake: vpermw 3 µops).
form vpermps|vpermpd|vpermd|vpermq|vpermt2d|vpermt2q|vpermt2ps|vpermt2pd|vpermi2d|vpermi2q|vpermi2ps|vpermi2pd|vpermw|vpermt2w|vpermi2w|vpermb|vpermt2b|vpermi2b v,v,v p5 lat=3
form vpermps|vpermpd|vpermd|vpermq|vpermt2d|vpermt2q|vpermt2ps|vpermt2pd|vpermi2d|vpermi2q|vpermi2ps|vpermi2pd v,v,mb p5+p23B lat=3
form vpermq|vpermpd v,v,i p5 lat=3
form vpermq|vpermpd v,mb,i p5+p23B lat=3
form vperm2f128|vperm2i128|vshuff32x4|vshuff64x2|vshufi32x4|vshufi64x2|valignd|valignq v,v,v,i p5 lat=3
form vshuff32x4|vshuff64x2|vshufi32x4|vshufi64x2|valignd|valignq v,v,mb,i p5+p23B lat=3
# Inserts and extracts of 128/256-bit lanes. From memory an insert is a
# load + blend (p015), without the shuffle unit; to memory an extract is a
# plain store.
form vinsertf128|vinserti128|vinsertf32x4|vinsertf64x2|vinserti32x4|vinserti64x2|vinsertf32x8|vinsertf64x4|vinserti32x8|vinserti64x4 v,v,m,i p015+p23B
form vinsertf128|vinserti128|vinsertf32x4|vinsertf64x2|vinserti32x4|vinserti64x2|vinsertf32x8|vinsertf64x4|vinserti32x8|vinserti64x4 v,v,v,i p5 lat=3
form vextractf128|vextracti128|vextractf32x4|vextractf64x2|vextracti32x4|vextracti64x2|vextractf32x8|vextractf64x4|vextracti32x8|vextracti64x4 m,v,i p78+p49
form vextractf128|vextracti128|vextractf32x4|vextractf64x2|vextracti32x4|vextracti64x2|vextractf32x8|vextractf64x4|vextracti32x8|vextracti64x4 v,v,i p5 lat=3
# Zero/sign extension: in-lane at xmm (p15, 1 cycle), lane-crossing at
# ymm/zmm (p5, 3 cycles); from memory: load + shuffle (measured ports).
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq x,m p15+p23B
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq v,m p5+p23B lat=3
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq x,x p15
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq v,v p5 lat=3
form pmovzxbw|pmovzxbd|pmovzxbq|pmovzxwd|pmovzxwq|pmovzxdq|pmovsxbw|pmovsxbd|pmovsxbq|pmovsxwd|pmovsxwq|pmovsxdq x,m p15+p23B
form pmovzxbw|pmovzxbd|pmovzxbq|pmovzxwd|pmovzxwq|pmovzxdq|pmovsxbw|pmovsxbd|pmovsxbq|pmovsxwd|pmovsxwq|pmovsxdq x,x p15
# Down-conversions (AVX-512 truncate/saturate): qword to dword 1 µop, 3
# cycles; the others 2 µops on p5, 4 cycles (measured); to memory: + store.
form vpmovqd|vpmovsqd|vpmovusqd v,v p5 lat=3
form vpmovqd|vpmovsqd|vpmovusqd m,v p5+p78+p49
form vpmovwb|vpmovdb|vpmovdw|vpmovqb|vpmovqw|vpmovswb|vpmovsdb|vpmovsdw|vpmovsqb|vpmovsqw|vpmovuswb|vpmovusdb|vpmovusdw|vpmovusqb|vpmovusqw v,v 2p5 lat=4
form vpmovwb|vpmovdb|vpmovdw|vpmovqb|vpmovqw|vpmovswb|vpmovsdb|vpmovsdw|vpmovsqb|vpmovsqw|vpmovuswb|vpmovusdb|vpmovusdw|vpmovusqb|vpmovusqw m,v 2p5+p78+p49
# Compress and expand (AVX-512): 2 µops on p5, 3 cycles (measured; Skylake
# compress 6)
form vcompressps|vcompresspd|vpcompressd|vpcompressq v,v 2p5 lat=3
form vcompressps|vcompresspd|vpcompressd|vpcompressq m,v 2p5+p78+p49
form vexpandps|vexpandpd|vpexpandd|vpexpandq v,v 2p5 lat=3
form vexpandps|vexpandpd|vpexpandd|vpexpandq v,m 2p5+p23B lat=3

# ------------------------------------------- GPR <-> vector element moves ---
form vpinsrb|vpinsrw|vpinsrd|vpinsrq x,x,r,i p15+p5 lat=3   # LLVM SPR p15 + p5; measured 3 cycles, ~1 per cycle
form vpinsrb|vpinsrw|vpinsrd|vpinsrq x,x,m,i p15+p23B        # load + in-lane shuffle (measured 2 per cycle)
form pinsrb|pinsrw|pinsrd|pinsrq x,r,i p15+p5 lat=3
form pinsrb|pinsrw|pinsrd|pinsrq x,m,i p15+p23B
form vpextrb|vpextrw|vpextrd|vpextrq|vextractps|pextrb|pextrw|pextrd|pextrq|extractps r,x,i p0+p15 lat=3   # measured 3
form vpextrb|vpextrw|vpextrd|vpextrq|vextractps|pextrb|pextrw|pextrd|pextrq|extractps m,x,i p15+p78+p49
form vpmovmskb|vmovmskps|vmovmskpd|pmovmskb|movmskps|movmskpd r,x p0 lat=2   # measured ~2 (xmm)
form vpmovmskb|vmovmskps|vmovmskpd r,y p0 lat=4   # measured 4 (ymm; LLVM SPR 4)

# ------------------------------------------------ crypto and strings ---
form vaesenc|vaesenclast|vaesdec|vaesdeclast z,z,z p0 lat=3   # VAES zmm: port 0 only (measured 1 per cycle)
form vaesenc|vaesenclast|vaesdec|vaesdeclast v,v,v p01 lat=3  # measured 3 cycles, 2 per cycle (Skylake: 4, p0)
form aesenc|aesenclast|aesdec|aesdeclast x,x p01 lat=3
form vaesimc|aesimc x,x 2p01 lat=8
form vaeskeygenassist|aeskeygenassist x,x,i 14p0156A lat=7    # LLVM SPR: 14 µops, 7 cycles
form vpcmpistri|pcmpistri|vpcmpistrm|pcmpistrm x,x,i 3p0 lat=11
form vpcmpestri|pcmpestri|vpcmpestrm|pcmpestrm x,x,i 8p0156A lat=16

# ========================================================================
# Gathers and scatters
# ========================================================================
# Measured on SPR: throughput ~0.7 cycles per element (zmm dword one per
# ~11.3 cycles, ymm dword and zmm qword (8 elements) one per ~5.5, xmm dword
# one per ~4.1), whatever the destination; latency from the index to the
# result 29-34 cycles, but a loop that reuses the merged destination (what
# gcc and clang emit: `vgatherdps zmm0{k2}, [rsi+zmm1*4]` every iteration)
# still runs at the throughput, so the destination is not a long dependency.
# The format has one latency for all inputs: lat is set at or below the
# throughput (z 10, y 5, x 4) so that the merge does not chain the gathers;
# chains through the index (rare) are underestimated. Resources: one load
# µop (the model sees a load and adds the load latency on the base address)
# plus element and overhead µops on p23 (gather loads use ports 2 and 3) so
# that the p23 pressure gives the measured throughput: 22 µops (11 cycles)
# for 16 elements, 11 for 8, 8 for 4, 6 for 2; plus index extraction and
# merge on p0/p5.
# AVX2 form: dest, vsib, mask vector
form vgatherdps|vpgatherdd y,m,y p23B+10p23+p0+p5+p015 lat=5 fused=4
form vgatherdps|vpgatherdd x,m,x p23B+7p23+p0+p5+p015 lat=4 fused=4
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq y,m,y p23B+7p23+p0+p5+p015 lat=4 fused=4
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq x,m,x p23B+5p23+p0+p5+p015 lat=3 fused=4
form vgatherqps|vpgatherqd x,m,x p23B+7p23+p0+p5+p015 lat=4 fused=4
# AVX-512 form: the write mask {k} is not an operand
form vgatherdps|vpgatherdd z,m p23B+21p23+p0+p5+p05 lat=10 fused=5
form vgatherdps|vpgatherdd y,m p23B+10p23+p0+p5+p015 lat=5 fused=5
form vgatherdps|vpgatherdd x,m p23B+7p23+p0+p5+p015 lat=4 fused=5
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq z,m p23B+10p23+p0+p5+p05 lat=5 fused=5
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq y,m p23B+7p23+p0+p5+p015 lat=4 fused=5
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq x,m p23B+5p23+p0+p5+p015 lat=3 fused=5
form vgatherqps|vpgatherqd y,m p23B+10p23+p0+p5+p015 lat=5 fused=5
form vgatherqps|vpgatherqd x,m p23B+7p23+p0+p5+p015 lat=4 fused=5
# Scatters: one store-address µop per element; the store-data slots are
# scaled to the measured throughput (zmm dword one per ~19.5 cycles, zmm
# qword one per ~12: ~1.2-1.5 cycles per element, the elements go to
# different lines, see the header) plus ~4 µops.
form vscatterdps|vpscatterdd m,z 16p78+38p49+p0+p5+2p05 fused=20
form vscatterdps|vpscatterdd|vscatterqps|vpscatterqd m,y 8p78+24p49+p0+p5+2p015 fused=12
form vscatterdps|vpscatterdd|vscatterqps|vpscatterqd m,x 4p78+12p49+p0+p5+2p015 fused=8
form vscatterdpd|vpscatterdq|vscatterqpd|vpscatterqq m,z 8p78+24p49+p0+p5+2p05 fused=12
form vscatterdpd|vpscatterdq|vscatterqpd|vpscatterqq m,y 4p78+12p49+p0+p5+2p015 fused=8
form vscatterdpd|vpscatterdq|vscatterqpd|vpscatterqq m,x 2p78+6p49+p0+p5+2p015 fused=6

# ========================================================================
# Mask registers (AVX-512)
# ========================================================================
form kmovb|kmovw|kmovd|kmovq k,r p5               # GPR -> k (measured k->r->k round trip 4)
form kmovb|kmovw|kmovd|kmovq r,k p0 lat=3         # k -> GPR
form kmovb|kmovw|kmovd|kmovq k,k p0
form kmovb|kmovw|kmovd|kmovq k,m p23B lat=0
form kmovb|kmovw|kmovd|kmovq m,k p78+p49
# kxnor/kxor of a mask with itself (all-ones / zero mask, rebuilt before
# every AVX-512 gather) breaks the dependency (measured: `kaddw k1,..;
# kxnorw k1,k1,k1` 1 cycle per iteration, 4.8 with a different source).
form kxorb|kxorw|kxord|kxorq|kxnorb|kxnorw|kxnord|kxnorq k,k,k p0 zero-idiom
form kandb|kandw|kandd|kandq|kandnb|kandnw|kandnd|kandnq|korb|korw|kord|korq k,k,k p0
form knotb|knotw|knotd|knotq k,k p0
form kortestb|kortestw|kortestd|kortestq|ktestb|ktestw|ktestd|ktestq k,k p0 lat=3   # to EFLAGS
form kshiftlb|kshiftlw|kshiftld|kshiftlq|kshiftrb|kshiftrw|kshiftrd|kshiftrq k,k,i p5 lat=4   # LLVM SPR 4
form kunpckbw|kunpckwd|kunpckdq k,k,k p5 lat=4
form kaddb|kaddw|kaddd|kaddq k,k,k p5 lat=4

# ========================================================================
# x87 (long double in libm/libstdc++). Only the forms whose operands are
# memory or implicit can be written: the key has no kind for st(i)
# registers, so fadd st, st(i) and friends fall to the x87 category line.
# (LLVM SPR: fadd p5 3 cycles, fmul p0 4, fdiv p0 15-20.)
# ========================================================================
form fld|fild m32 p23B lat=3                      # + the load latency
form fld m64 p23B lat=3
form fld m80 2p01+2p23B lat=4 fused=4
form fild m p01+p23B lat=6
form fst|fstp m32 p01+p78+p49 lat=4
form fst|fstp m64 p01+p78+p49 lat=4
form fstp m80 3p0156A+2p78+2p49 lat=5 fused=7
form fist|fistp|fisttp m p5+p78+p49 lat=7
form fadd|fsub|fsubr|fcom|fcomp m p5+p23B lat=3
form fmul m p0+p23B lat=4
form fdiv|fdivr m p0+p23B lat=15 div=4
form fiadd|fisub|fisubr|ficom|ficomp m 2p5+p23B lat=6
form fimul m p0+p5+p23B lat=8
form fidiv|fidivr m p0+p5+p23B lat=18 div=4
form fldz|fld1|fldpi|fldl2e|fldln2|fldl2t|fldlg2 - 2p05
form fchs|fabs - p0
form fsqrt - p0 lat=20 div=7
form frndint - 17p0156A lat=21
form fxam - 2p0156A lat=2
form fnstsw - p0+p0156A lat=3                    # fnstsw ax (ax implicit)
form fnstsw m p0+p78+p49
form fnstcw m p6+p78+p49
form fldcw m p23B+p0+p05 lat=7
form fwait - 2p0156A
form fnstenv|fldenv|fnsave|frstor|fxsave|fxrstor|fxsave64|fxrstor64 m 60p0156A+10p23B+10p78+10p49 lat=60 fused=80

# ========================================================================
# MXCSR, vzeroupper
# ========================================================================
form vzeroupper - - lat=0 fused=1                 # handled at rename (LLVM SPR: 0 µops)
form vzeroall - 12p0156A lat=0 fused=25
form vldmxcsr|ldmxcsr m p23B+p0+p0156A+p06 lat=7  # LLVM SPR: 4 µops, 7 cycles; partly serializing in hardware, rare in hot code
form vstmxcsr|stmxcsr m p0+p06+p78+p49
form emms - p0+8p05+p06 lat=10

# ========================================================================
# Category fallbacks ("modelled approximately"): used only when no form
# above matches, in this order. Operands with memory carry their load or
# store µops explicitly since these lines are not derived.
# ========================================================================
category gather|avx2gather * p23B+10p23+p0+p5+p015 lat=5 fused=5
category scatter * 8p78+24p49+p0+p5+2p015 fused=12
category aes|vaes x,* p01 lat=3
category aes|vaes * p01 lat=3
category pclmulqdq|vpclmulqdq * p5 lat=3
category sttni * 3p0 lat=11
category conflict * 9p5+12p015 lat=17
category compress|expand * 2p5 lat=3
category kmask k,* p0
category kmask * p0 lat=3
category vfma|ufma|fma4 v,v,m p01+p23B lat=4
category vfma|ufma|fma4 * p01 lat=4
category convert v,m p01+p5+p23B lat=5
category convert r,* p0+p01 lat=6
category convert * p01+p5 lat=5
category broadcast v,m p23B lat=0
category broadcast * p5 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend m,* p78+p49
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,m p23B lat=0
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,m p015+p23B lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,m,* p015+p23B lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,mb p015+p23B lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,mb,* p015+p23B lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend z,* p05 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend * p015 lat=3
category x87_alu|fcmov m,* p01+p23B lat=4         # x87 with a memory operand not written above (fbld, ...)
category x87_alu|fcmov * p01 lat=3              # x87 on st(i) registers (no operand kind for them in the key)
category mmx * p015 lat=1
category cmov r,m p06+p23B
category cmov * p06
category setcc m,* p06+p78+p49
category setcc * p06
category shift|rotate m,* p06+p23B+p78+p49 fused=3
category shift|rotate * p06
category bitbyte|bmi1|bmi2|lzcnt|tbm * p15A lat=1
category binary|logical|dataxfer|flagop|misc m,* p0156A+p23B+p78+p49
category binary|logical|dataxfer|flagop|misc r,m p0156A+p23B
category binary|logical|dataxfer|flagop|misc r,m,* p0156A+p23B
category binary|logical|dataxfer|flagop|misc * p0156A
category push * p78+p49
category pop * p23B lat=0
category call * p78+p49+p6
category ret * p23B+p6 fused=2
category cond_br|uncond_br * p6
category stringop|iostringop * 4p23B+4p78+4p49+16p0156A lat=20 fused=24
category nop|widenop * - lat=0 fused=1
category prefetch|cldemote|clflushopt|clwb * p23B lat=0
category semaphore * p23B+p78+p49+6p0156A lat=20 serial
category system|syscall|sysret|interrupt|serialize|io|segop|xsave|xsaveopt|sgx|vtx|tsx_ldtrk|rdpid|rdrand|rdseed|rdwrfsgs|pconfig|uintr|waitpkg * 20p0156A lat=30 serial
category * * p0156A lat=1
