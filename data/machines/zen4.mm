machine zen4
# gus machine model: AMD Zen 4 (EPYC 9004 "Genoa", Ryzen 7000 "Raphael";
# also Bergamo's Zen 4c, Siena, Phoenix). Format: data/machines/FORMAT.
#
# NOT MEASURED: no Zen 4 was available. Every number of this file comes from
# published sources: the AMD Software Optimization Guide for Family 19h
# Processors (Zen 4, pub. 57647) and its instruction latency table, uops.info
# (Zen 4 measurements), Agner Fog's microarchitecture manual and tables,
# Chips and Cheese ("AMD's Zen 4 Part 1: Frontend and Execution Engine",
# "Part 2: Memory Subsystem"); GCC's znver4 and LLVM's X86ScheduleZnver4
# scheduling descriptions were only cross-checks of µop counts. zen5.mm is
# written as its differences to this file and was measured on a Zen 5 KVM
# guest (bench/accuracy/results/zen5-kvm-2026-11-29*.csv): where a Zen 5
# measurement confirms a unit Zen 4 shares (integer ALU latencies, the
# vector integer units, the load-store unit), zen5.mm says so; this file
# is not adjusted to those measurements.
#
# Conventions of this file
# - Port names (one character each; zen5.mm uses the same ports, as the
#   format requires of a base):
#     0 1 2 3 4 5   integer ALUs (Zen 4 has ALU0-3: ports 4 and 5 are Zen
#                   5's fifth and sixth ALU, unused here)
#     6 7 8 9       address generation / load-store pipes (Zen 4: three
#                   AGUs, 6 7 8; 9 is Zen 5's fourth)
#     A B C D       FP/vector pipes FP0-FP3
#     E F           FP4/FP5: the two store-data and FP->integer pipes
# - Groups: p0123 = integer ALU (4 per cycle), p1 = the integer multiplier
#   (imul, mul, pdep/pext, crc32, and the integer divider's µop), p03 = the
#   two branch units, p678 = loads (3 per cycle), p67 = store addresses (2
#   per cycle: at most 3 memory operations per cycle, of which 2 stores),
#   p78 = vector loads (two 256-bit loads per cycle), pEF = store data;
#   pABCD = vector integer ALU and logic (4 per cycle), pAB = FMA / FMUL
#   (FP0/FP1), pCD = FADD and FP compare (FP2/FP3), pBC = shuffles and
#   vector shifts (FP1/FP2), pAD = vector integer multiply (FP0/FP3), pB =
#   the FP divider.
#   (AMD 57647, "Floating-Point Unit" and "Integer Execution Unit"; Chips
#   and Cheese, Zen 4 part 1.)
# - 512-bit operations: Zen 4 executes a zmm operation in two passes of
#   its 256-bit pipes. Written as two µops on the pipe group (half the
#   throughput, same latency) that take one dispatch slot (fused=1): one
#   macro-op (AMD 57647, "AVX-512"). zmm loads are two 256-bit loads, zmm
#   stores take the store-data path twice.
# - No add-immediate folding: AMD does not execute add/sub r,imm or inc/dec
#   at rename (Golden Cove does): every add is an ALU µop, 1 cycle (measured
#   on the Zen 5 guest, the same rule: bench/accuracy/zenprobe.txt).
# - Macro-ops: AMD dispatches x86 instructions as macro-ops; an instruction
#   with a memory operand (load-op, store, read-modify-write) is one
#   macro-op, so the read-modify-write forms are written fused=1.
# - The forms follow spr.mm's list (the same mnemonics and operand kinds,
#   so that the corpus of tests/cli/test_sim_coverage.sh is known to both
#   models); their resources were remapped to the Zen pipes above and the
#   latencies that differ from Golden Cove set from the sources named in
#   each section. Rare forms (x87, string instructions, system
#   instructions, AVX-512 FP16 conversions) keep Golden Cove's µop counts
#   and latencies on the corresponding Zen units: NOT checked against a
#   Zen source, an approximation for code where they are rare.
# - Not expressible in the format (known deviations): the op cache and the
#   dual-decoder front end (one `frontend` width); a 512-bit operation
#   holding its pipe for two cycles is written as two µops; memory
#   operations are at most 3 per cycle through the groups above, but the
#   128-bit/256-bit load width rules are only the p78 group.
describe AMD Zen 4 (Genoa/Raphael): 6-wide dispatch, 320-entry ROB, 4 ALUs, 3 AGUs, 4+2 FP pipes, AVX-512 on 256-bit datapaths, 1 MiB L2, 32 MiB L3 per CCD
alias znver4 genoa raphael bergamo zen4c
# The simulated Top-Down in AMD's words (dispatch slots; Backend Bound
# Memory and CPU, SMT Contention), as the zen4/zen5 TMA tables name the
# nodes of AMD's pipeline-utilization hierarchy
topdown amd

# ------------------------------------------------------------- core ---
ports 0 1 2 3 4 5 6 7 8 9 A B C D E F   # ALU 0-5 (Zen 4: 0-3), AGU 6-9 (Zen 4: 6-8), FP0-FP3 A-D, FP4/FP5 E F
window 320                          # reorder buffer, macro-ops (AMD 57647; Chips and Cheese Zen 4)
# Math µops wait for a free scheduler entry: the FP unit's two 32-entry
# schedulers (AMD 57647; the 64-entry non-scheduling queue in front of
# them holds µops that do not wait on operands, and the integer side's
# four 24-entry queues are rarely the ones a chain fills). µops waiting
# on a long FP chain fill them, which limits how far the next row's chain
# overlaps (Zen 5 measured, zen5.mm).
scheduler 64
frontend 6                          # dispatch: 6 macro-ops per cycle (AMD 57647)
retire 8                            # retire: 8 macro-ops per cycle (AMD 57647)
load-buffer 136                     # loads in flight to retirement: 136 (Chips and Cheese, Zen 4 part 2: a 136-entry structure tracks loads after the 72-entry load execution queue, AMD 57647, frees them)
store-buffer 64                     # store queue: 64 entries (AMD 57647)
vector-renames 192                  # FP/vector register file: 192 entries (AMD 57647)
mispredict-penalty 13               # ~13 cycles, 11 minimum (AMD 57647 "Branch Prediction"; Chips and Cheese)
taken-branch-rate 1                 # one taken branch per cycle (Zen 4; Zen 5 doubles it)
load-latency 4 x=7 y=7 z=8          # L1 load-to-use: 4 cycles to an integer register, 7 to the FP unit (AMD 57647; zmm: one more pass, uops.info Zen 4 shows 8)
store-forward 7                     # store-to-load forwarding: ~7 cycles from store data to the load's result (Agner Fog, Zen 4; Chips and Cheese)
memory-renaming indexed             # Zen 2 and later "mirror" a 32/64-bit GPR memory operand addressed by a pointer and optionally an index: a reload of a stored value has no latency (Agner Fog's microarchitecture manual and forum, Zen 2; measured on the Zen 5 guest, see zen5.mm; not measured on a Zen 4)

# ----------------------------------------------------------- caches ---
cache L1D size=32K ways=8 line=64 latency=0              # 32 KiB 8-way (AMD 57647)
cache L2 size=1M ways=8 line=64 latency=10 gap=2        # 1 MiB 8-way private L2, 14 cycles load-to-use = 4 + 10 (AMD 57647; Chips and Cheese 14); 32 B/cycle from the L2 -> 2 cycles per line (AMD 57647)
cache L3 size=32M ways=16 line=64 latency=46 gap=2      # 32 MiB 16-way L3 per CCD (victim cache), ~50 cycles load-to-use (AMD 57647: average 50; Chips and Cheese ~50): 46 over the L1; 32 B/cycle per core
memory latency=330 gap=8            # DRAM (DDR5): ~90 ns at ~3.7 GHz (Chips and Cheese, Genoa) -> ~330 over the L1 (estimate); ~30 GB/s per core -> ~8 cycles per line (estimate)
btb sets=1024 ways=8                # L1 BTB 1.5K, L2 BTB 7K entries (AMD 57647); geometry not documented (informational)
divider 1                           # one divider resource: the integer divider and the FP divider (pB) are separate units on Zen, the model has one
load-uop p678+p78                   # a load µop on any of the three AGUs (p678); vector loads, written out or folded into a vector instruction, on two of them (p78: two 256-bit loads per cycle, AMD 57647): loads too
store-uops p67+pEF                  # store address on two of the AGUs, store data on FP4/FP5's store path
# ========================================================================
# General-purpose moves, loads and stores
# ========================================================================
# Register moves are eliminated at rename (AMD 57647: MOV reg,reg and
# vector register moves have zero latency). Loads: lat=0, the load latency
# is added by the model (load-latency). Stores: address on p67, data on pEF.
form mov r64,r64 - lat=0 fused=1 elim
form mov r32,r32 - lat=0 fused=1 elim
form mov r,r p0123
form mov r,i p0123
form mov r8,m p678+p0123
form mov r16,m p678+p0123
form mov r,m p678 lat=0
form mov m,r p67+pEF
form mov m,i p67+pEF
form movnti m,r p67+pEF
form movzx|movsx|movsxd r,m p678 lat=0
form movzx r,r p0123
form movsx|movsxd r,r p0123
form cbw|cwde|cdqe - p0123
form cwd - 2p0123 lat=2
form cdq|cqo - p0123
form lea r,a p0123                               # 1 cycle with one or two components without scale (AMD 57647 "LEA"); a scaled index takes 2, the key does not tell: 1 kept
form lea r,a3 p0123 lat=2                        # three components: 2 cycles (AMD 57647)
form push r p67+pEF
form push i p67+pEF
form push m p678+p67+pEF fused=2
form pop r p678 lat=0
form pop m p678+p67+pEF fused=2
form xchg r,r 2p0123 lat=1                       # AMD 57647: 2 macro-ops, 1 cycle
form xchg r 2p0123 lat=1
form xchg|lock.xchg m,r p678+p67+pEF+5p0123 lat=8 serial
form bswap r32 p0123
form bswap r64 p0123                             # 1 µop, 1 cycle (AMD 57647 table, uops.info Zen 4)
form bswap r16 p0123
form movbe r32,m p678+p0123
form movbe r64,m p678+2p0123 lat=2
form movbe r16,m p678+2p0123
form movbe m,r32 p0123+p67+pEF
form movbe m,r64 2p0123+p67+pEF lat=2
form movbe m,r16 p0123+p67+pEF
form lahf|sahf - p0123
form clc|stc|cmc - p0123
form cld|std - 3p0123 lat=3
form pushfq|pushf - p67+pEF+2p0123
form popfq|popf - p678+6p0123 lat=5
form xlat - p678+p0123

# ========================================================================
# Integer ALU
# ========================================================================
# Simple integer operations: any of the ALUs, 1 cycle (AMD 57647). cmp/test
# and add/sub/and/inc/dec fuse with a following jcc (AMD 57647 "Branch
# Fusion"). No add-immediate folding at rename (see the header).
form xor r32,r32 p0123 zero-idiom
form xor r64,r64 p0123 zero-idiom
form sub r32,r32 p0123 fuse zero-idiom
form sub r64,r64 p0123 fuse zero-idiom
form cmp|test m,i p0123+p678
form add|sub|and|or|xor m,* p0123+p678+p67+pEF fused=1   # RMW: one macro-op at dispatch (AMD 57647: a fastpath single with a memory operand)
form inc|dec m,* p0123+p678+p67+pEF fused=1
form neg|not m,* p0123+p678+p67+pEF fused=1
form adc|sbb m,* 2p0123+p678+p67+pEF fused=4
form add|sub r64,i p0123 fuse                    # not folded at rename on AMD: one ALU µop, 1 cycle per add in a chain (AMD 57647; see header)
form inc|dec r64 p0123 fuse
form add|sub|and|cmp|test r,r p0123 fuse
form add|sub|and|cmp|test r,i p0123 fuse
form add|sub|and|cmp|test i p0123 fuse
form inc|dec r p0123 fuse
form or|xor r,r p0123
form or|xor r,i p0123
form or|xor i p0123
form neg|not r p0123
form adc|sbb r,r p0123
form adc|sbb r,i p0123
form adc|sbb i p0123
form adcx|adox r,r p0123

# ------------------------------------------------ multiply and divide ---
# imul: one multiplier, 3 cycles (AMD 57647; uops.info Zen 4). The divider
# latencies depend on the operands; the values below are the middle of
# AMD's ranges (not measured on a Zen 4).
form imul r16,r16,i p1+p0123 lat=3
form imul r,r,i p1 lat=3
form imul r,r p1 lat=3
form imul|mul r64 p1+p0123 lat=3                 # rdx:rax <- rax * r64: 2 µops, rax after 3, rdx after 4 (uops.info Zen 4); 3 kept
form imul|mul r32 p1+p0123 lat=3
form imul|mul r16 p1+3p0123 lat=4
form imul|mul r8 p1 lat=3
form mulx r64,r64,r64 p1+p0123 lat=4
form mulx r32,r32,r32 p1+2p0123 lat=4
form div|idiv r8 p1+p0123 lat=10 div=10          # integer divider (not pipelined). AMD 57647: DIV r8 latency 10 (not measured here)
form div|idiv r16 p1+p0123 lat=12 div=10
form div r32 p1+p0123 lat=12 div=8               # AMD 57647 / uops.info Zen 4: DIV r32 10-14 cycles depending on the quotient (not measured here)
form idiv r32 p1+p0123 lat=12 div=8
form div|idiv r64 p1+p0123 lat=14 div=10         # AMD 57647 / uops.info Zen 4: DIV r64 10-18 cycles depending on the quotient (not measured here)

# -------------------------------------------------- shifts and rotates ---
# Shifts and rotates by immediate, 1 or cl: one ALU µop, 1 cycle (AMD
# 57647; Agner Fog Zen 4).
form shl|shr|sar|rol|ror r,i p0123
form shl|shr|sar r p0123                         # by 1 or cl: one µop on AMD (no flag-merge µops)
form rol|ror r p0123
form rcl|rcr r,i 8p0123 lat=6
form rcl|rcr r 3p0123 lat=2
form shl|shr|sar|rol|ror m,* p0123+p678+p67+pEF fused=3
form shlx|shrx|sarx r,r,r p0123
form rorx r,r,i p0123
form shld|shrd r,r,i p0123 lat=2                 # uops.info Zen 4: 2 cycles
form shld|shrd r,r 3p0123 lat=2
form shld|shrd m,* 2p0123+p678+p67+pEF lat=3

# ------------------------------------------------------ bit operations ---
# popcnt/lzcnt/tzcnt/bsf/bsr and bt: 1 cycle on the ALUs; pdep/pext and
# crc32 3 cycles on the multiplier (AMD 57647: Zen 3 and later, no longer
# microcoded).
form bt r,r p0123
form bt r,i p0123
form bts|btr|btc r,r p0123
form bts|btr|btc r,i p0123
form bt m,i p0123+p678
form bt m,r p678+5p0123 lat=3                    # microcoded bit-string addressing (AMD 57647: bt m,r vector path)
form bts|btr|btc m,i p0123+p678+p67+pEF fused=3
form bts|btr|btc m,r p678+p67+pEF+7p0123 lat=5
form bsf|bsr r,r p0123 lat=1                     # AMD 57647 table (Zen 4): 1 cycle, any ALU
form lzcnt|tzcnt|popcnt r,r p0123 lat=1          # AMD 57647 / Agner Fog (Zen 4): 1 cycle, 4 per cycle (Intel: 3 cycles, port 1)
form andn r,r,r p0123
form blsi|blsr|blsmsk r,r p0123
form bzhi r,r,r p0123
form bextr r,r,r p0123                           # single µop on Zen 3 and later (AMD 57647)
form pdep|pext r,r,r p1 lat=3
form crc32 r,r p1 lat=3

# ----------------------------------------------------- cmov and setcc ---
form cmovbe|cmovnbe r,r p0123                    # any condition is one µop on AMD
form cmovo|cmovno|cmovb|cmovnb|cmovz|cmovnz|cmovs|cmovns|cmovp|cmovnp|cmovl|cmovnl|cmovle|cmovnle r,r p0123
form setbe|setnbe r8 p0123
form seto|setno|setb|setnb|setz|setnz|sets|setns|setp|setnp|setl|setnl|setle|setnle r8 p0123

# ========================================================================
# Branches, calls and returns
# ========================================================================
# Two branch units (p03); one taken branch per cycle (taken-branch-rate).
form jo|jno|jb|jnb|jz|jnz|jbe|jnbe|js|jns|jp|jnp|jl|jnl|jle|jnle rel p03
form jcxz|jecxz|jrcxz rel p0123+p03 lat=2
form loop rel 4p03+3p0123 lat=3
form loope|loopne rel 6p03+5p0123 lat=3
form jmp rel p03
form jmp r p03
form jmp m p678+p03
form call rel p67+pEF+p03
form call r p67+pEF+p03
form call m p678+p67+pEF+p03 fused=3
form ret - p678+p03 fused=2
form ret i p678+p03+p0123 fused=3
form leave - p678+2p0123
form enter i,i 12p0123+p67+pEF lat=8

# ========================================================================
# NOPs, fences, atomics, prefetches, system
# ========================================================================
# Fences and system instructions: Golden Cove µop counts on the Zen units
# (NOT checked against a Zen source); locked operations ~8 cycles (Agner
# Fog, Zen 4).
form nop - - lat=0 fused=1
form nop * - lat=0 fused=1
form endbr64|endbr32 - - lat=0 fused=1
form pause - 4p0123 lat=64                       # AMD 57647: PAUSE ~64 cycles on Zen 4 (Zen 2: 65)
form lfence - 2p0123 serial
form mfence - p678+pEF+p0123 serial
form sfence - p67+pEF serial
form prefetcht0|prefetcht1|prefetcht2|prefetchnta|prefetchw|prefetchwt1 m p678 lat=0
form clflush|clflushopt|clwb m p678+pEF+2p0123
form lock.add|lock.sub|lock.and|lock.or|lock.xor|lock.adc|lock.sbb m,* p678+p67+pEF+5p0123 lat=8 serial   # Agner Fog (Zen 4): locked RMW ~8 cycles (Intel ~20)
form lock.inc|lock.dec|lock.neg|lock.not m,* p678+p67+pEF+5p0123 lat=8 serial
form lock.xadd m,* p678+p67+pEF+6p0123 lat=8 serial
form lock.cmpxchg m,* p678+p67+pEF+7p0123 lat=8 serial
form lock.cmpxchg8b|lock.cmpxchg16b m p678+p67+pEF+16p0123 lat=32 serial
form lock.bts|lock.btr|lock.btc m,* p678+p67+pEF+8p0123 lat=20 serial
form xadd r,r 3p0123 lat=2
form xadd m,r p678+p67+pEF+3p0123 lat=2
form cmpxchg r,r 5p0123 lat=3
form cmpxchg m,r p678+p67+pEF+4p0123 lat=3
form cmpxchg8b|cmpxchg16b m p678+p67+pEF+14p0123 lat=25
form rdtsc - 15p0123 lat=56
form rdtscp - 21p0123 lat=70 serial
form rdpmc - 18p0123 lat=40 serial
form rdrand|rdseed r 25p0123 lat=110
form cpuid - 26p0123 lat=100 serial
form xgetbv - 15p0123 lat=10
form syscall|sysenter - 40p0123 lat=100 serial
form ud2|int3|hlt - p0123 serial
form xtest - 2p0123
form xbegin rel 20p0123 lat=20 serial
form xend|xabort * 20p0123 lat=20 serial

# ========================================================================
# String instructions
# ========================================================================
# Golden Cove's model of a short fast-string call on the Zen units (NOT
# checked against a Zen source).
form rep.movsb|rep.movsw|rep.movsd|rep.movsq - 4p678+4p67+4pEF+16p0123 lat=20 fused=24
form rep.stosb|rep.stosw|rep.stosd|rep.stosq - 4p67+4pEF+16p0123 lat=20 fused=24
form repe.cmpsb|repe.cmpsw|repe.cmpsd|repe.cmpsq|repne.cmpsb|repne.cmpsw|repne.cmpsd|repne.cmpsq - 32p678+32p0123 lat=40 fused=48
form repe.scasb|repe.scasw|repe.scasd|repe.scasq|repne.scasb|repne.scasw|repne.scasd|repne.scasq - 16p678+32p0123 lat=40 fused=40
form rep.lodsb|rep.lodsw|rep.lodsd|rep.lodsq - 16p678+32p0123 lat=40 fused=40
form movsb|movsw|movsd|movsq - p678+p67+pEF+4p0123 fused=7
form stosb|stosw|stosd|stosq - p67+pEF+2p0123 fused=4
form lodsb|lodsw|lodsd|lodsq - p678+2p0123 fused=3
form scasb|scasw|scasd|scasq - p678+3p0123 fused=4
form cmpsb|cmpsw|cmpsd|cmpsq - 2p678+5p0123 fused=7

# ========================================================================
# Vector moves, loads and stores (SSE, AVX, AVX-512)
# ========================================================================
# Vector loads: p78 (two 256-bit loads per cycle; a zmm load two passes).
# Shuffle-class µops (p5 on Intel) on FP1/FP2 (pBC); GPR<->vector moves
# cross to the FP unit on pBC / pEF (AMD 57647).
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa|vmovdqu|vmovdqa32|vmovdqa64|vmovdqu32|vmovdqu64 v,v - lat=0 fused=1 elim
form movaps|movapd|movups|movupd|movdqa|movdqu x,x - lat=0 fused=1 elim
form vmovdqu8|vmovdqu16 z,z 2pABCD fused=1
form vmovdqu8|vmovdqu16 v,v pABCD
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa|vmovdqu|vmovdqa32|vmovdqa64|vmovdqu8|vmovdqu16|vmovdqu32|vmovdqu64|vmovntdqa|vlddqu v,m p78 lat=0
form movaps|movapd|movups|movupd|movdqa|movdqu|movntdqa|lddqu x,m p78 lat=0
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa32|vmovdqa64|vmovdqu8|vmovdqu16|vmovdqu32|vmovdqu64|vmovntps|vmovntpd|vmovntdq m,z p67+2pEF fused=1
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa|vmovdqu|vmovdqa32|vmovdqa64|vmovdqu8|vmovdqu16|vmovdqu32|vmovdqu64 m,v p67+pEF
form movaps|movapd|movups|movupd|movdqa|movdqu m,x p67+pEF
form vmovntps|vmovntpd|vmovntdq|movntps|movntpd|movntdq m,v p67+pEF
form vmovss|vmovsd|movss|movsd|vmovd|vmovq|movd|movq x,m p78 lat=0
form vmovss|vmovsd|movss|movsd|vmovd|vmovq|movd|movq m,x p67+pEF
form vmovss|vmovsd x,x,x pABCD
form movss|movsd x,x pABCD
form vmovq|movq x,x pABCD
form vmovw x,m p78 lat=0
form vmovw m,x p67+pEF
form vmovw x,r pBC lat=2
form vmovw r,x pEF lat=2
form vmovd|vmovq|movd|movq x,r pBC lat=2
form vmovd|vmovq|movd|movq r,x pEF lat=2
form vmovlps|vmovlpd x,x,m pBC+p78
form movlps|movlpd x,m pBC+p78
form vmovhps|vmovhpd x,x,m pBC+p78
form movhps|movhpd x,m pBC+p78
form vmovlps|vmovhps|vmovlpd|vmovhpd|movlps|movhps|movlpd|movhpd m,x p67+pEF
form vmovhlps|vmovlhps x,x,x pBC
form movhlps|movlhps x,x pBC
form vmovddup|vmovsldup|vmovshdup|movddup|movsldup|movshdup v,m p78 lat=0
form vmovsldup|vmovshdup z,z 2pBC fused=1
form vmovsldup|vmovshdup|movsldup|movshdup v,v pBC
form vmovddup|movddup v,v pBC
form vmaskmovps|vmaskmovpd|vpmaskmovd|vpmaskmovq v,v,m pABCD+p78
form vmaskmovps|vmaskmovpd|vpmaskmovd|vpmaskmovq m,v,v pABCD+p67+pEF
form maskmovdqu|vmaskmovdqu x,x 10p0123+p67+pEF lat=6

# ------------------------------------------------------- broadcasts ---
form vbroadcastss|vbroadcastsd|vbroadcastf128|vbroadcasti128|vbroadcastf32x4|vbroadcastf64x4|vbroadcasti32x4|vbroadcasti64x4|vbroadcastf32x8|vbroadcasti32x8|vbroadcastf64x2|vbroadcasti64x2|vpbroadcastd|vpbroadcastq v,m p78 lat=0
form vbroadcastf32x2|vbroadcasti32x2 v,m pBC+p78 lat=1
form vpbroadcastb|vpbroadcastw v,m pBC+p78 lat=1
form vbroadcastss|vbroadcastsd|vpbroadcastb|vpbroadcastw|vpbroadcastd|vpbroadcastq|vbroadcasti32x2|vbroadcastf32x2 x,x pBC
form vbroadcastss|vbroadcastsd|vpbroadcastb|vpbroadcastw|vpbroadcastd|vpbroadcastq|vbroadcasti32x2|vbroadcastf32x2 v,x pBC lat=3
form vpbroadcastb|vpbroadcastw|vpbroadcastd|vpbroadcastq v,r pBC lat=3
form vpbroadcastmb2q|vpbroadcastmw2d v,k pBC

# ========================================================================
# FP arithmetic (packed and scalar)
# ========================================================================
# FMUL/FMA on FP0/FP1 (pAB), 3/4 cycles; FADD on FP2/FP3 (pCD), 3 cycles;
# zmm in two passes (AMD 57647; uops.info Zen 4).
form vaddps|vaddpd|vsubps|vsubpd z,z,z 2pCD lat=3 fused=1   # FADD pipes FP2/FP3, 3 cycles; 512 bits in two passes (AMD 57647)
form vaddps|vaddpd|vsubps|vsubpd z,z,mb 2pCD+2p78 lat=3 fused=1
form vaddps|vaddpd|vsubps|vsubpd v,v,mb pCD+p78 lat=3
form vaddps|vaddpd|vsubps|vsubpd|vaddsubps|vaddsubpd|vaddss|vaddsd|vsubss|vsubsd v,v,v pCD lat=3   # FADD: 3 cycles (AMD 57647, uops.info Zen 4)
form addps|addpd|subps|subpd|addsubps|addsubpd|addss|addsd|subss|subsd x,x pCD lat=3
form vmulps|vmulpd|vminps|vminpd|vmaxps|vmaxpd|vscalefps|vscalefpd z,z,z 2pAB lat=3 fused=1   # FMUL on FP0/FP1: 3 cycles (AMD 57647); min/max kept with them
form vmulps|vmulpd|vminps|vminpd|vmaxps|vmaxpd|vscalefps|vscalefpd z,z,mb 2pAB+2p78 lat=3 fused=1
form vmulps|vmulpd|vminps|vminpd|vmaxps|vmaxpd|vscalefps|vscalefpd v,v,mb pAB+p78 lat=3
form vmulps|vmulpd|vminps|vminpd|vmaxps|vmaxpd|vscalefps|vscalefpd|vmulss|vmulsd|vminss|vminsd|vmaxss|vmaxsd|vscalefss|vscalefsd|vgetexpss|vgetexpsd v,v,v pAB lat=3
form mulps|mulpd|minps|minpd|maxps|maxpd|mulss|mulsd|minss|minsd|maxss|maxsd x,x pAB lat=3
form vaddss|vaddsd|vsubss|vsubsd x,x,m pCD+p78 lat=3
form addss|addsd|subss|subsd x,m pCD+p78 lat=3
form vmulss|vmulsd|vminss|vminsd|vmaxss|vmaxsd|vscalefss|vscalefsd|vgetexpss|vgetexpsd x,x,m pAB+p78 lat=3
form mulss|mulsd|minss|minsd|maxss|maxsd x,m pAB+p78 lat=3
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd z,z,z 2pAB lat=4 fused=1
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd z,z,z 2pAB lat=4 fused=1
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd z,z,z 2pAB lat=4 fused=1
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd z,z,mb 2pAB+2p78 lat=4 fused=1
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd z,z,mb 2pAB+2p78 lat=4 fused=1
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd z,z,mb 2pAB+2p78 lat=4 fused=1
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd v,v,mb pAB+p78 lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd v,v,mb pAB+p78 lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd v,v,mb pAB+p78 lat=4
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd v,v,v pAB lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd v,v,v pAB lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd v,v,v pAB lat=4
form vfmadd132ss|vfmadd213ss|vfmadd231ss|vfmadd132sd|vfmadd213sd|vfmadd231sd|vfmsub132ss|vfmsub213ss|vfmsub231ss|vfmsub132sd|vfmsub213sd|vfmsub231sd x,x,x pAB lat=4
form vfnmadd132ss|vfnmadd213ss|vfnmadd231ss|vfnmadd132sd|vfnmadd213sd|vfnmadd231sd|vfnmsub132ss|vfnmsub213ss|vfnmsub231ss|vfnmsub132sd|vfnmsub213sd|vfnmsub231sd x,x,x pAB lat=4
form vfnmadd132ss|vfnmadd213ss|vfnmadd231ss|vfnmadd132sd|vfnmadd213sd|vfnmadd231sd|vfnmsub132ss|vfnmsub213ss|vfnmsub231ss|vfnmsub132sd|vfnmsub213sd|vfnmsub231sd x,x,m pAB+p78 lat=4
form vfmadd132ss|vfmadd213ss|vfmadd231ss|vfmadd132sd|vfmadd213sd|vfmadd231sd|vfmsub132ss|vfmsub213ss|vfmsub231ss|vfmsub132sd|vfmsub213sd|vfmsub231sd x,x,m pAB+p78 lat=4
form vgetexpps|vgetexppd z,z 2pAB lat=4 fused=1
form vgetexpps|vgetexppd z,mb 2pAB+2p78 lat=4 fused=1
form vgetexpps|vgetexppd v,mb pAB+p78 lat=4
form vgetexpps|vgetexppd v,v pAB lat=4
form vgetmantps|vgetmantpd z,z,i 2pAB lat=4 fused=1
form vgetmantps|vgetmantpd z,mb,i 2pAB+2p78 lat=4 fused=1
form vgetmantps|vgetmantpd v,mb,i pAB+p78 lat=4
form vgetmantps|vgetmantpd v,v,i pAB lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd z,z,z,i 2pAB lat=4 fused=1
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd z,z,mb,i 2pAB+2p78 lat=4 fused=1
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd v,v,mb,i pAB+p78 lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd|vfixupimmss|vfixupimmsd|vrangess|vrangesd|vgetmantss|vgetmantsd v,v,v,i pAB lat=4
form vcmpps|vcmppd|vcmpss|vcmpsd v,v,v,i pCD lat=2   # FP compare into a vector: FADD pipes, 2 cycles (uops.info Zen 4)
form cmpps|cmppd|cmpss|cmpsd x,x,i pCD lat=2
form vcmpps|vcmppd|vcmpss|vcmpsd k,v,v,i pBC lat=3
form vcmpps|vcmppd k,v,mb,i pBC+p78 lat=3
form vfpclassps|vfpclasspd|vfpclassss|vfpclasssd k,v,i pBC lat=3
form vfpclassps|vfpclasspd k,mb,i pBC+p78 lat=3
form vcomiss|vcomisd|vucomiss|vucomisd|comiss|comisd|ucomiss|ucomisd x,x pCD lat=3
form vcomiss|vcomisd|vucomiss|vucomisd|comiss|comisd|ucomiss|ucomisd x,m pCD+p78 lat=3

# ------------------------------------------- FP division and square root ---
# One FP divider on FP1 (pB). Latency / issue interval: the Golden Cove
# values are kept where AMD's table agrees within a cycle or two (11/3-5
# for single, 13/4-8 for double at x/y); NOT measured on a Zen 4.
form vdivps z,z,z 6pB lat=18 div=10 fused=3
form vdivps z,z,mb 6pB+2p78 lat=18 div=10 fused=3
form vdivpd z,z,z 6pB lat=24 div=16 fused=3
form vdivpd z,z,mb 6pB+2p78 lat=24 div=16 fused=3
form vsqrtps z,z 6pB lat=19 div=12 fused=3
form vsqrtps z,mb 6pB+2p78 lat=19 div=12 fused=3
form vsqrtpd z,z 6pB lat=24 div=17 fused=3
form vsqrtpd z,mb 6pB+2p78 lat=24 div=17 fused=3
form vdivps y,y,y pB lat=11 div=5
form vdivps y,y,mb pB+p78 lat=11 div=5
form vdivpd y,y,y pB lat=13 div=8
form vdivpd y,y,mb pB+p78 lat=13 div=8
form vsqrtps y,y pB lat=12 div=6
form vsqrtps y,mb pB+p78 lat=12 div=6
form vsqrtpd y,y pB lat=13 div=9
form vsqrtpd y,mb pB+p78 lat=13 div=9
form vdivss x,x,m pB+p78 lat=11 div=3
form divss x,m pB+p78 lat=11 div=3
form vdivsd x,x,m pB+p78 lat=13 div=4
form divsd x,m pB+p78 lat=13 div=4
form vsqrtss x,x,m pB+p78 lat=12 div=3
form sqrtss x,m pB+p78 lat=12 div=3
form vsqrtsd x,x,m pB+p78 lat=13 div=4.5
form sqrtsd x,m pB+p78 lat=13 div=4.5
form vdivps|vdivss x,x,x pB lat=11 div=3
form vdivps x,x,mb pB+p78 lat=11 div=3
form divps|divss x,x pB lat=11 div=3
form vdivpd|vdivsd x,x,x pB lat=13 div=4
form vdivpd x,x,mb pB+p78 lat=13 div=4
form divpd|divsd x,x pB lat=13 div=4
form vsqrtps|sqrtps|sqrtss x,x pB lat=12 div=3
form vsqrtps x,mb pB+p78 lat=12 div=3
form vsqrtss x,x,x pB lat=12 div=3
form vsqrtpd|sqrtpd|sqrtsd x,x pB lat=13 div=4.5
form vsqrtpd x,mb pB+p78 lat=13 div=4.5
form vsqrtsd x,x,x pB lat=13 div=4.5
form vrcpps|vrsqrtps|rcpps|rsqrtps|rcpss|rsqrtss v,v pB lat=4
form vrcpss|vrsqrtss x,x,x pB lat=4
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd z,z 6pB lat=6 fused=3
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd z,mb 6pB+2p78 lat=6 fused=3
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd v,mb pB+p78 lat=4
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd v,v pB lat=4
form vrcp14ss|vrcp14sd|vrsqrt14ss|vrsqrt14sd x,x,x pB lat=4

# ------------------------------------------------------------ rounding ---
form vroundps|vroundpd|vroundss|vroundsd|vrndscaless|vrndscalesd|vreducess|vreducesd x,x,x,i 2pAB lat=8
form vroundss|vroundsd|vrndscaless|vrndscalesd|vreducess|vreducesd x,x,m,i 2pAB+p78 lat=8
form roundss|roundsd x,m,i 2pAB+p78 lat=8
form vrndscaleps|vrndscalepd|vreduceps|vreducepd z,z,i 4pAB lat=8 fused=2
form vrndscaleps|vrndscalepd|vreduceps|vreducepd z,mb,i 4pAB+2p78 lat=8 fused=2
form vrndscaleps|vrndscalepd|vreduceps|vreducepd v,mb,i 2pAB+p78 lat=8
form vroundps|vroundpd|vrndscaleps|vrndscalepd|vreduceps|vreducepd v,v,i 2pAB lat=8
form roundps|roundpd|roundss|roundsd x,x,i 2pAB lat=8

# ---------------------------------------------------------- FP logic ---
form vxorps|vxorpd z,z,z 2pABCD zero-idiom fused=1
form vxorps|vxorpd v,v,v pABCD zero-idiom
form xorps|xorpd x,x pABCD zero-idiom
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vblendmps|vblendmpd z,z,z 2pABCD fused=1
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vxorps|vxorpd|vblendmps|vblendmpd z,z,mb 2pABCD+2p78 fused=1
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vxorps|vxorpd|vblendmps|vblendmpd v,v,mb pABCD+p78
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vblendmps|vblendmpd v,v,v pABCD
form andps|andpd|andnps|andnpd|orps|orpd x,x pABCD
form vblendps|vblendpd v,v,v,i pABCD
form blendps|blendpd x,x,i pABCD
form vblendvps|vblendvpd|vpblendvb v,v,v,v pABCD lat=1   # one µop, 1 cycle on AMD (Intel: 3 µops)
form blendvps|blendvpd|pblendvb x,x pABCD

# ------------------------------------------------ horizontal FP and dot ---
form vhaddps|vhaddpd|vhsubps|vhsubpd v,v,v 2pBC+pCD lat=5
form haddps|haddpd|hsubps|hsubpd x,x 2pBC+pCD lat=5
form vdpps v,v,v,i 2pAB+p0123+2pCD+pBC lat=15
form dpps x,x,i 2pAB+p0123+2pCD+pBC lat=15
form vdppd x,x,x,i 2pAB+pCD lat=9
form dppd x,x,i 2pAB+pCD lat=9

# ========================================================================
# Conversions
# ========================================================================
# Conversions on FP2/FP3 (pCD) plus a shuffle µop where the width changes;
# counts and latencies from the Golden Cove list (NOT checked against a Zen
# source), on the Zen pipes.
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq z,z 2pCD lat=4 fused=1
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq z,mb 2pCD+2p78 lat=4 fused=1
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq v,mb pCD+p78 lat=4
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq v,v pCD lat=4
form cvtdq2ps|cvtps2dq|cvttps2dq x,x pCD lat=4
form vcvtph2ps|vcvtph2psx x,x pCD+pBC lat=6
form vcvtph2ps|vcvtph2psx y,x pCD+pBC lat=8
form vcvtph2psx z,y 2pCD+2pBC lat=8 fused=2
form vcvtps2ph x,x,i pCD+pBC lat=6
form vcvtps2ph x,y,i pCD+pBC lat=8
form vcvtps2ph y,z,i 2pCD+2pBC lat=8 fused=2
form vcvtps2ph m,v,i pCD+pBC+p67+pEF
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps|vcvtph2ps z,v 2pCD+2pBC lat=7 fused=2
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps v,z 2pCD+2pBC lat=7 fused=2
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq z,mb 2pCD+2pBC+2p78 lat=7 fused=2
form vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtqq2ps|vcvtuqq2ps y,mb pCD+pBC+p78 lat=7
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps v,mb pCD+pBC+p78 lat=5
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtph2ps z,m 2pCD+2p78 lat=4 fused=1
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtph2ps|cvtps2pd|cvtdq2pd v,m pCD+p78 lat=4
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps x,x pCD+pBC lat=5
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps v,v pCD+pBC lat=7
form cvtps2pd|cvtdq2pd|cvtpd2ps|cvtpd2dq|cvttpd2dq x,x pCD+pBC lat=5
form vcvtss2sd|vcvtsd2ss x,x,m pCD+p78 lat=4
form vcvtss2sd|vcvtsd2ss x,x,x pCD+pBC lat=5
form cvtss2sd|cvtsd2ss x,m pCD+p78 lat=4
form cvtss2sd|cvtsd2ss x,x pCD+pBC lat=5
form vcvtsi2ss|vcvtusi2ss x,x,r64 pCD+2pBC lat=7
form vcvtsi2ss|vcvtsi2sd|vcvtusi2ss|vcvtusi2sd x,x,r pCD+pBC lat=6
form vcvtsi2ss|vcvtsi2sd|vcvtusi2ss|vcvtusi2sd x,x,m pCD+p78 lat=4
form cvtsi2ss x,r64 pCD+2pBC lat=7
form cvtsi2ss|cvtsi2sd x,r pCD+pBC lat=6
form cvtsi2ss|cvtsi2sd x,m pCD+p78 lat=4
form vcvtss2si|vcvttss2si|vcvtss2usi|vcvttss2usi|cvtss2si|cvttss2si r64,x 2pCD+pBC lat=7
form vcvtsd2si|vcvttsd2si|vcvtss2si|vcvttss2si|vcvtsd2usi|vcvttsd2usi|vcvtss2usi|vcvttss2usi|cvtsd2si|cvttsd2si|cvtss2si|cvttss2si r,x 2pCD lat=6
form vcvtsd2si|vcvttsd2si|vcvtss2si|vcvttss2si|vcvtsd2usi|vcvttsd2usi|vcvtss2usi|vcvttss2usi|cvtsd2si|cvttsd2si|cvtss2si|cvttss2si r,m 2pCD+p78 lat=6

# ========================================================================
# Integer SIMD
# ========================================================================
# Vector integer add/logic/compare/min/max: 1 cycle on all four pipes
# (pABCD); shifts on FP1/FP2 (pBC), 1 cycle; multiplies on FP0/FP3 (pAD),
# 3 cycles (AMD 57647; uops.info Zen 4). In-lane shuffles 1 cycle, lane-
# crossing 3 on pBC.
form vpxor|vpxord|vpxorq|vpsubb|vpsubw|vpsubd|vpsubq z,z,z 2pABCD zero-idiom fused=1
form vpxor|vpxord|vpxorq|vpsubb|vpsubw|vpsubd|vpsubq v,v,v pABCD zero-idiom
form pxor|psubb|psubw|psubd|psubq x,x pABCD zero-idiom
form vpcmpgtb|vpcmpgtw|vpcmpgtd v,v,v pABCD zero-idiom
form pcmpgtb|pcmpgtw|pcmpgtd x,x pABCD zero-idiom
form vpcmpeqb|vpcmpeqw|vpcmpeqd|vpcmpeqq v,v,v pABCD zero-idiom
form pcmpeqb|pcmpeqw|pcmpeqd|pcmpeqq x,x pABCD zero-idiom
form vpaddb|vpaddw|vpaddd|vpaddq|vpand|vpandd|vpandq|vpandn|vpandnd|vpandnq|vpor|vpord|vporq|vpblendmb|vpblendmw|vpblendmd|vpblendmq z,z,z 2pABCD fused=1
form vpaddd|vpaddq|vpsubd|vpsubq|vpandd|vpandq|vpandnd|vpandnq|vpord|vporq|vpxord|vpxorq|vpblendmd|vpblendmq z,z,mb 2pABCD+2p78 fused=1
form vpaddd|vpaddq|vpsubd|vpsubq|vpandd|vpandq|vpandnd|vpandnq|vpord|vporq|vpxord|vpxorq|vpblendmd|vpblendmq v,v,mb pABCD+p78
form vpaddb|vpaddw|vpaddd|vpaddq|vpand|vpandd|vpandq|vpandn|vpandnd|vpandnq|vpor|vpord|vporq|vpblendmb|vpblendmw|vpblendmd|vpblendmq v,v,v pABCD
form paddb|paddw|paddd|paddq|pand|pandn|por x,x pABCD
form vpternlogd|vpternlogq z,z,z,i 2pABCD fused=1
form vpternlogd|vpternlogq z,z,mb,i 2pABCD+2p78 fused=1
form vpternlogd|vpternlogq v,v,mb,i pABCD+p78
form vpternlogd|vpternlogq v,v,v,i pABCD
form vpblendd v,v,v,i pABCD
form vpblendw z,z,z,i 2pBC fused=1
form vpblendw v,v,v,i pBC
form pblendw x,x,i pBC
form vpmovm2b|vpmovm2w|vpmovm2d|vpmovm2q z,k 2pABCD fused=1
form vpmovm2b|vpmovm2w|vpmovm2d|vpmovm2q v,k pABCD
form vpmovb2m|vpmovw2m|vpmovd2m|vpmovq2m k,v pABCD
form vpminsq|vpminuq|vpmaxsq|vpmaxuq v,v,v pABCD  # 1 cycle on the vector ALUs (Intel: p5, 3)
form vpminsq|vpminuq|vpmaxsq|vpmaxuq v,v,mb pABCD+p78
form vpminsb|vpminsw|vpminsd|vpminub|vpminuw|vpminud|vpmaxsb|vpmaxsw|vpmaxsd|vpmaxub|vpmaxuw|vpmaxud z,z,z 2pABCD fused=1
form vpavgb|vpavgw|vpaddsb|vpaddsw|vpaddusb|vpaddusw|vpsubsb|vpsubsw|vpsubusb|vpsubusw z,z,z 2pABCD fused=1
form vpminsd|vpminud|vpmaxsd|vpmaxud z,z,mb 2pABCD+2p78 fused=1
form vpminsd|vpminud|vpmaxsd|vpmaxud v,v,mb pABCD+p78
form vpminsb|vpminsw|vpminsd|vpminub|vpminuw|vpminud|vpmaxsb|vpmaxsw|vpmaxsd|vpmaxub|vpmaxuw|vpmaxud v,v,v pABCD
form vpavgb|vpavgw|vpaddsb|vpaddsw|vpaddusb|vpaddusw|vpsubsb|vpsubsw|vpsubusb|vpsubusw|vpsignb|vpsignw|vpsignd v,v,v pABCD
form pminsb|pminsw|pminsd|pminub|pminuw|pminud|pmaxsb|pmaxsw|pmaxsd|pmaxub|pmaxuw|pmaxud|pavgb|pavgw|paddsb|paddsw|paddusb|paddusw|psubsb|psubsw|psubusb|psubusw|psignb|psignw|psignd x,x pABCD
form vpabsb|vpabsw|vpabsd|vpabsq z,z 2pABCD fused=1
form vpabsd|vpabsq z,mb 2pABCD+2p78 fused=1
form vpabsd|vpabsq v,mb pABCD+p78
form vpabsb|vpabsw|vpabsd|vpabsq v,v pABCD
form pabsb|pabsw|pabsd x,x pABCD
form vpcmpgtq v,v,v pABCD                        # 1 cycle on AMD
form pcmpgtq x,x pABCD
form vpcmpeqb|vpcmpeqw|vpcmpeqd|vpcmpeqq|vpcmpgtb|vpcmpgtw|vpcmpgtd|vpcmpgtq|vptestmb|vptestmw|vptestmd|vptestmq|vptestnmb|vptestnmw|vptestnmd|vptestnmq k,v,v pBC lat=3
form vpcmpeqd|vpcmpeqq|vpcmpgtd|vpcmpgtq|vptestmd|vptestmq|vptestnmd|vptestnmq k,v,mb pBC+p78 lat=3
form vpcmpb|vpcmpw|vpcmpd|vpcmpq|vpcmpub|vpcmpuw|vpcmpud|vpcmpuq k,v,v,i pBC lat=3
form vpcmpd|vpcmpq|vpcmpud|vpcmpuq k,v,mb,i pBC+p78 lat=3
form vptest|vtestps|vtestpd|ptest v,v pEF+pBC lat=3

# -------------------------------------------------------------- shifts ---
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq z,z,x 4pBC fused=2
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq y,y,x 2pBC
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq x,x,x 2pBC
form psllw|pslld|psllq|psrlw|psrld|psrlq|psraw|psrad x,x 2pBC
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq z,z,i 2pBC fused=1
form vpslld|vpsllq|vpsrld|vpsrlq|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq z,mb,i 2pBC+2p78 fused=1
form vpslld|vpsllq|vpsrld|vpsrlq|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq v,mb,i pBC+p78
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq v,v,i pBC
form psllw|pslld|psllq|psrlw|psrld|psrlq|psraw|psrad x,i pBC
form vpsllvw|vpsllvd|vpsllvq|vpsrlvw|vpsrlvd|vpsrlvq|vpsravw|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq z,z,z 2pBC fused=1
form vpsllvd|vpsllvq|vpsrlvd|vpsrlvq|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq z,z,mb 2pBC+2p78 fused=1
form vpsllvd|vpsllvq|vpsrlvd|vpsrlvq|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq v,v,mb pBC+p78
form vpsllvw|vpsllvd|vpsllvq|vpsrlvw|vpsrlvd|vpsrlvq|vpsravw|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq v,v,v pBC
form vpslldq|vpsrldq z,z,i 2pBC fused=1
form vpslldq|vpsrldq v,v,i pBC
form pslldq|psrldq x,i pBC

# ------------------------------------------------------------ multiply ---
form vpmullw|vpmulhw|vpmulhuw|vpmulhrsw|vpmuludq|vpmuldq|vpmaddwd|vpmaddubsw z,z,z 2pAD lat=3 fused=1
form vpmuludq|vpmuldq z,z,mb 2pAD+2p78 lat=3 fused=1
form vpmuludq|vpmuldq v,v,mb pAD+p78 lat=3
form vpmullw|vpmulhw|vpmulhuw|vpmulhrsw|vpmuludq|vpmuldq|vpmaddwd|vpmaddubsw v,v,v pAD lat=3
form pmullw|pmulhw|pmulhuw|pmulhrsw|pmuludq|pmuldq|pmaddwd|pmaddubsw x,x pAD lat=3
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds z,z,z 2pAD lat=5 fused=1
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds z,z,mb 2pAD+2p78 lat=5 fused=1
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds v,v,mb pAD+p78 lat=5
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds v,v,v pAD lat=5
form vpmulld z,z,z 2pAD lat=3 fused=1            # vector integer multiply on FP0/FP3, 3 cycles (AMD 57647, uops.info Zen 4)
form vpmulld z,z,mb 2pAD+2p78 lat=3 fused=1
form vpmulld v,v,mb pAD+p78 lat=3
form vpmulld v,v,v pAD lat=3
form pmulld x,x pAD lat=3
form vpmullq z,z,z 2pAD lat=3 fused=1
form vpmullq z,z,mb 2pAD+2p78 lat=3 fused=1
form vpmullq v,v,mb pAD+p78 lat=3
form vpmullq v,v,v pAD lat=3
form vpclmulqdq v,v,v,i pBC lat=3
form pclmulqdq x,x,i pBC lat=3
form vpsadbw v,v,v pBC lat=3
form vdbpsadbw v,v,v,i pBC lat=3
form psadbw x,x pBC lat=3
form vmpsadbw v,v,v,i 2pBC lat=3
form mpsadbw x,x,i 2pBC lat=3
form vphminposuw|phminposuw x,x pABCD lat=4
form vphaddw|vphaddd|vphaddsw|vphsubw|vphsubd|vphsubsw v,v,v 2pBC+pABCD lat=2
form phaddw|phaddd|phaddsw|phsubw|phsubd|phsubsw x,x 2pBC+pABCD lat=2
form vplzcntd|vplzcntq z,z 2pABCD lat=4 fused=1
form vplzcntd|vplzcntq z,mb 2pABCD+2p78 lat=4 fused=1
form vplzcntd|vplzcntq v,mb pABCD+p78 lat=4
form vplzcntd|vplzcntq v,v pABCD lat=4
form vpconflictd z,z 34pBC+40pABCD lat=27 fused=37
form vpconflictq z,z 18pBC+26pABCD lat=17 fused=22
form vpconflictd|vpconflictq v,v 9pBC+12pABCD lat=17
form vpopcntb|vpopcntw|vpopcntd|vpopcntq v,v pBC lat=3
form vpopcntd|vpopcntq v,mb pBC+p78 lat=3

# ------------------------------------------------------------ shuffles ---
form vpshufb|vpunpcklbw|vpunpckhbw|vpunpcklwd|vpunpckhwd|vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq z,z,z 2pBC fused=1
form vpshufb|vpunpcklbw|vpunpckhbw|vpunpcklwd|vpunpckhwd|vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq v,v,v pBC
form vpermilps|vpermilpd|vunpcklps|vunpckhps|vunpcklpd|vunpckhpd v,v,v pBC
form vpacksswb|vpackssdw|vpackuswb|vpackusdw v,v,v pBC lat=3
form vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq z,z,mb 2pBC+2p78 fused=1
form vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq v,v,mb pBC+p78
form vpermilps|vpermilpd|vunpcklps|vunpckhps|vunpcklpd|vunpckhpd v,v,mb pBC+p78
form vpackssdw|vpackusdw v,v,mb pBC+p78 lat=3
form vinsertps x,x,m,i pBC+p78
form insertps x,m,i pBC+p78
form vshufps|vshufpd z,z,z,i 2pBC fused=1
form vshufps|vshufpd v,v,v,i pBC
form vpalignr|vinsertps v,v,v,i pBC
form vshufps|vshufpd z,z,mb,i 2pBC+2p78 fused=1
form vshufps|vshufpd v,v,mb,i pBC+p78
form vpshufd|vpshuflw|vpshufhw z,z,i 2pBC fused=1
form vpshufd|vpshuflw|vpshufhw v,v,i pBC
form vpermilps|vpermilpd v,v,i pBC
form vpshufd z,mb,i 2pBC+2p78 fused=1
form vpshufd v,mb,i pBC+p78
form vpermilps|vpermilpd v,mb,i pBC+p78
form pshufb|punpcklbw|punpckhbw|punpcklwd|punpckhwd|punpckldq|punpckhdq|punpcklqdq|punpckhqdq x,x pBC
form unpcklps|unpckhps|unpcklpd|unpckhpd x,x pBC
form packsswb|packssdw|packuswb|packusdw x,x pBC lat=3
form shufps|shufpd|pshufd|pshuflw|pshufhw x,x,i pBC
form palignr|insertps x,x,i pBC
form vpermps|vpermpd|vpermd|vpermq|vpermt2d|vpermt2q|vpermt2ps|vpermt2pd|vpermi2d|vpermi2q|vpermi2ps|vpermi2pd|vpermw|vpermt2w|vpermi2w|vpermb|vpermt2b|vpermi2b v,v,v pBC lat=3
form vpermps|vpermpd|vpermd|vpermq|vpermt2d|vpermt2q|vpermt2ps|vpermt2pd|vpermi2d|vpermi2q|vpermi2ps|vpermi2pd v,v,mb pBC+p78 lat=3
form vpermq|vpermpd v,v,i pBC lat=3
form vpermq|vpermpd v,mb,i pBC+p78 lat=3
form vperm2f128|vperm2i128|vshuff32x4|vshuff64x2|vshufi32x4|vshufi64x2|valignd|valignq v,v,v,i pBC lat=3
form vshuff32x4|vshuff64x2|vshufi32x4|vshufi64x2|valignd|valignq v,v,mb,i pBC+p78 lat=3
form vinsertf128|vinserti128|vinsertf32x4|vinsertf64x2|vinserti32x4|vinserti64x2|vinsertf32x8|vinsertf64x4|vinserti32x8|vinserti64x4 v,v,m,i pABCD+p78
form vinsertf128|vinserti128|vinsertf32x4|vinsertf64x2|vinserti32x4|vinserti64x2|vinsertf32x8|vinsertf64x4|vinserti32x8|vinserti64x4 v,v,v,i pBC lat=3
form vextractf128|vextracti128|vextractf32x4|vextractf64x2|vextracti32x4|vextracti64x2|vextractf32x8|vextractf64x4|vextracti32x8|vextracti64x4 m,v,i p67+pEF
form vextractf128|vextracti128|vextractf32x4|vextractf64x2|vextracti32x4|vextracti64x2|vextractf32x8|vextractf64x4|vextracti32x8|vextracti64x4 v,v,i pBC lat=3
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq x,m pBC+p78
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq v,m pBC+p78 lat=3
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq x,x pBC
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq v,v pBC lat=3
form pmovzxbw|pmovzxbd|pmovzxbq|pmovzxwd|pmovzxwq|pmovzxdq|pmovsxbw|pmovsxbd|pmovsxbq|pmovsxwd|pmovsxwq|pmovsxdq x,m pBC+p78
form pmovzxbw|pmovzxbd|pmovzxbq|pmovzxwd|pmovzxwq|pmovzxdq|pmovsxbw|pmovsxbd|pmovsxbq|pmovsxwd|pmovsxwq|pmovsxdq x,x pBC
form vpmovqd|vpmovsqd|vpmovusqd v,v pBC lat=3
form vpmovqd|vpmovsqd|vpmovusqd m,v pBC+p67+pEF
form vpmovwb|vpmovdb|vpmovdw|vpmovqb|vpmovqw|vpmovswb|vpmovsdb|vpmovsdw|vpmovsqb|vpmovsqw|vpmovuswb|vpmovusdb|vpmovusdw|vpmovusqb|vpmovusqw v,v 2pBC lat=4
form vpmovwb|vpmovdb|vpmovdw|vpmovqb|vpmovqw|vpmovswb|vpmovsdb|vpmovsdw|vpmovsqb|vpmovsqw|vpmovuswb|vpmovusdb|vpmovusdw|vpmovusqb|vpmovusqw m,v 2pBC+p67+pEF
form vcompressps|vcompresspd|vpcompressd|vpcompressq v,v 2pBC lat=3
form vcompressps|vcompresspd|vpcompressd|vpcompressq m,v 2pBC+p67+pEF
form vexpandps|vexpandpd|vpexpandd|vpexpandq v,v 2pBC lat=3
form vexpandps|vexpandpd|vpexpandd|vpexpandq v,m 2pBC+p78 lat=3

# ------------------------------------------- GPR <-> vector element moves ---
form vpinsrb|vpinsrw|vpinsrd|vpinsrq x,x,r,i 2pBC lat=3
form vpinsrb|vpinsrw|vpinsrd|vpinsrq x,x,m,i pBC+p78
form pinsrb|pinsrw|pinsrd|pinsrq x,r,i 2pBC lat=3
form pinsrb|pinsrw|pinsrd|pinsrq x,m,i pBC+p78
form vpextrb|vpextrw|vpextrd|vpextrq|vextractps|pextrb|pextrw|pextrd|pextrq|extractps r,x,i pEF+pBC lat=3
form vpextrb|vpextrw|vpextrd|vpextrq|vextractps|pextrb|pextrw|pextrd|pextrq|extractps m,x,i pBC+p67+pEF
form vpmovmskb|vmovmskps|vmovmskpd|pmovmskb|movmskps|movmskpd r,x pEF lat=2
form vpmovmskb|vmovmskps|vmovmskpd r,y pEF lat=4

# ------------------------------------------------ crypto and strings ---
form vaesenc|vaesenclast|vaesdec|vaesdeclast z,z,z 2pAB lat=3 fused=1
form vaesenc|vaesenclast|vaesdec|vaesdeclast v,v,v pAB lat=3
form aesenc|aesenclast|aesdec|aesdeclast x,x pAB lat=3
form vaesimc|aesimc x,x 2pAB lat=8
form vaeskeygenassist|aeskeygenassist x,x,i 14p0123 lat=7
form vpcmpistri|pcmpistri|vpcmpistrm|pcmpistrm x,x,i 3pABCD lat=11
form vpcmpestri|pcmpestri|vpcmpestrm|pcmpestrm x,x,i 8p0123 lat=16

# ========================================================================
# Gathers and scatters
# ========================================================================
# Gathers: microcoded on Zen 4 (AMD 57647); the element loads of Golden
# Cove's model on the Zen load pipes (NOT checked).
form vgatherdps|vpgatherdd y,m,y 11p78+2pABCD+pBC lat=5 fused=4
form vgatherdps|vpgatherdd x,m,x 8p78+2pABCD+pBC lat=4 fused=4
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq y,m,y 8p78+2pABCD+pBC lat=4 fused=4
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq x,m,x 6p78+2pABCD+pBC lat=3 fused=4
form vgatherqps|vpgatherqd x,m,x 8p78+2pABCD+pBC lat=4 fused=4
form vgatherdps|vpgatherdd z,m 22p78+2pABCD+pBC lat=10 fused=5
form vgatherdps|vpgatherdd y,m 11p78+2pABCD+pBC lat=5 fused=5
form vgatherdps|vpgatherdd x,m 8p78+2pABCD+pBC lat=4 fused=5
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq z,m 11p78+2pABCD+pBC lat=5 fused=5
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq y,m 8p78+2pABCD+pBC lat=4 fused=5
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq x,m 6p78+2pABCD+pBC lat=3 fused=5
form vgatherqps|vpgatherqd y,m 11p78+2pABCD+pBC lat=5 fused=5
form vgatherqps|vpgatherqd x,m 8p78+2pABCD+pBC lat=4 fused=5
form vscatterdps|vpscatterdd m,z 16p67+38pEF+3pABCD+pBC fused=20
form vscatterdps|vpscatterdd|vscatterqps|vpscatterqd m,y 8p67+24pEF+3pABCD+pBC fused=12
form vscatterdps|vpscatterdd|vscatterqps|vpscatterqd m,x 4p67+12pEF+3pABCD+pBC fused=8
form vscatterdpd|vpscatterdq|vscatterqpd|vpscatterqq m,z 8p67+24pEF+3pABCD+pBC fused=12
form vscatterdpd|vpscatterdq|vscatterqpd|vpscatterqq m,y 4p67+12pEF+3pABCD+pBC fused=8
form vscatterdpd|vpscatterdq|vscatterqpd|vpscatterqq m,x 2p67+6pEF+3pABCD+pBC fused=6

# ========================================================================
# Mask registers (AVX-512)
# ========================================================================
# AVX-512 mask operations on the FP pipes (AMD 57647); Golden Cove latencies.
form kmovb|kmovw|kmovd|kmovq k,r pBC
form kmovb|kmovw|kmovd|kmovq r,k pEF lat=3
form kmovb|kmovw|kmovd|kmovq k,k pEF
form kmovb|kmovw|kmovd|kmovq k,m p678 lat=0
form kmovb|kmovw|kmovd|kmovq m,k p67+pEF
form kxorb|kxorw|kxord|kxorq|kxnorb|kxnorw|kxnord|kxnorq k,k,k pAB zero-idiom
form kandb|kandw|kandd|kandq|kandnb|kandnw|kandnd|kandnq|korb|korw|kord|korq k,k,k pAB
form knotb|knotw|knotd|knotq k,k pAB
form kortestb|kortestw|kortestd|kortestq|ktestb|ktestw|ktestd|ktestq k,k pEF lat=3
form kshiftlb|kshiftlw|kshiftld|kshiftlq|kshiftrb|kshiftrw|kshiftrd|kshiftrq k,k,i pBC lat=4
form kunpckbw|kunpckwd|kunpckdq k,k,k pBC lat=4
form kaddb|kaddw|kaddd|kaddq k,k,k pBC lat=4

# ========================================================================
# ========================================================================
form fld|fild m32 p678 lat=3
form fld m64 p678 lat=3
form fld m80 2pAB+2p678 lat=4 fused=4
form fild m pAB+p678 lat=6
form fst|fstp m32 pAB+p67+pEF lat=4
form fst|fstp m64 pAB+p67+pEF lat=4
form fstp m80 3p0123+2p67+2pEF lat=5 fused=7
form fist|fistp|fisttp m pCD+p67+pEF lat=7
form fadd|fsub|fsubr|fcom|fcomp m pCD+p678 lat=3
form fmul m pAB+p678 lat=4
form fdiv|fdivr m pAB+p678 lat=15 div=4
form fiadd|fisub|fisubr|ficom|ficomp m 2pCD+p678 lat=6
form fimul m pAB+pCD+p678 lat=8
form fidiv|fidivr m pAB+pCD+p678 lat=18 div=4
form fldz|fld1|fldpi|fldl2e|fldln2|fldl2t|fldlg2 - 2pABCD
form fchs|fabs - pAB
form fsqrt - pAB lat=20 div=7
form frndint - 17p0123 lat=21
form fxam - 2p0123 lat=2
form fnstsw - pAB+p0123 lat=3
form fnstsw m pAB+p67+pEF
form fnstcw m p03+p67+pEF
form fldcw m p678+pAB+pABCD lat=7
form fwait - 2p0123
form fnstenv|fldenv|fnsave|frstor|fxsave|fxrstor|fxsave64|fxrstor64 m 60p0123+10p678+10p67+10pEF lat=60 fused=80

# ========================================================================
# MXCSR, vzeroupper
# ========================================================================
form vzeroupper - - lat=0 fused=1
form vzeroall - 12p0123 lat=0 fused=25
form vldmxcsr|ldmxcsr m p678+pABCD+2p0123 lat=7
form vstmxcsr|stmxcsr m pABCD+p0123+p67+pEF
form emms - 9pABCD+p0123 lat=10

# ========================================================================
# ========================================================================
category gather|avx2gather * 11p78+2pABCD+pBC lat=5 fused=5
category scatter * 8p67+24pEF+3pABCD+pBC fused=12
category aes|vaes x,* pAB lat=3
category aes|vaes * pAB lat=3
category pclmulqdq|vpclmulqdq * pBC lat=3
category sttni * 3pABCD lat=11
category conflict * 9pBC+12pABCD lat=17
category compress|expand * 2pBC lat=3
category kmask k,* pABCD
category kmask * pABCD lat=3
category vfma|ufma|fma4 v,v,m pABCD+p78 lat=4
category vfma|ufma|fma4 * pABCD lat=4
category convert v,m pABCD+pBC+p78 lat=5
category convert r,* 2pABCD lat=6
category convert * pABCD+pBC lat=5
category broadcast v,m p78 lat=0
category broadcast * pBC lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend m,* p67+pEF
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,m p78 lat=0
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,m pABCD+p78 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,m,* pABCD+p78 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,mb pABCD+p78 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,mb,* pABCD+p78 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend z,* 2pABCD lat=3 fused=1
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend * pABCD lat=3
category x87_alu|fcmov m,* pAB+p678 lat=4
category x87_alu|fcmov * pAB lat=3
category mmx * pABCD lat=1
category cmov r,m p0123+p678
category cmov * p0123
category setcc m,* p0123+p67+pEF
category setcc * p0123
category shift|rotate m,* p0123+p678+p67+pEF fused=3
category shift|rotate * p0123
category bitbyte|bmi1|bmi2|lzcnt|tbm * p0123 lat=1
category binary|logical|dataxfer|flagop|misc m,* p0123+p678+p67+pEF
category binary|logical|dataxfer|flagop|misc r,m p0123+p678
category binary|logical|dataxfer|flagop|misc r,m,* p0123+p678
category binary|logical|dataxfer|flagop|misc * p0123
category push * p67+pEF
category pop * p678 lat=0
category call * p67+pEF+p03
category ret * p678+p03 fused=2
category cond_br|uncond_br * p03
category stringop|iostringop * 4p678+4p67+4pEF+16p0123 lat=20 fused=24
category nop|widenop * - lat=0 fused=1
category prefetch|cldemote|clflushopt|clwb * p678 lat=0
category semaphore * p678+p67+pEF+6p0123 lat=20 serial
category system|syscall|sysret|interrupt|serialize|io|segop|xsave|xsaveopt|sgx|vtx|tsx_ldtrk|rdpid|rdrand|rdseed|rdwrfsgs|pconfig|uintr|waitpkg * 20p0123 lat=30 serial
category * * p0123 lat=1
