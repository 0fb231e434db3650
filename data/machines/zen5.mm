machine zen5
base zen4
# gus machine model: AMD Zen 5 (EPYC 9005 "Turin", Ryzen 9000 "Granite
# Ridge"), written as its differences to zen4.mm (format: data/machines/
# FORMAT, `base`): the ports are zen4.mm's (ALUs 0-5, AGUs 6-9, FP0-FP3 A-D,
# FP4/FP5 E F), Zen 5 uses all of them.
#
# Sources: the AMD Software Optimization Guide for Family 1Ah (Zen 5, pub.
# 58455), Chips and Cheese ("Zen 5's integer and FP execution", "Zen 5's
# memory subsystem"), numberworld.org's Zen 5 AVX-512 teardown, and
# measurements: "measured" below means rdtsc timings of loop bodies on a
# Zen 5 (Turin, family 1Ah model 2) KVM guest, 2 vCPUs, no PMU
# (bench/accuracy/run.sh with kernels.txt and zenprobe.txt; results in
# bench/accuracy/results/zen5-kvm-2026-11-29*.csv). The guest was shared
# with other builds while measured: latencies were clean (a chain is not
# slowed by a busy sibling), throughputs of the ALU-bound probes are
# probably on the slow side (the harness found too few undisturbed
# samples; the medians are kept).
#
# What differs from Zen 4, and how it is written:
# - 8-wide dispatch, 448-entry ROB, 8-wide retire (AMD 58455);
# - six integer ALUs (p012345): three of them multiply (p123: measured ~3
#   imuls per cycle), three take branches and shifts (p045: measured 7
#   branches per iteration in 2.33 cycles, 12 shifts and the loop branch in
#   4.33), cmov/setcc on four (measured 12 cmovs in 3.0 cycles);
# - four AGUs: 4 loads per cycle (measured 12 in 3.0), at most 2 stores
#   (measured 8 in 4.0), 4 memory operations in all (8 loads and 4 stores in
#   3.0): loads p6789, stores p67, vector loads p89 (measured 2 ymm or zmm
#   loads per cycle);
# - full 512-bit datapaths: a zmm operation is one µop (measured 4 vpaddd
#   zmm and 2 zmm FMAs per cycle, the same as ymm);
# - the FP adder takes 2 cycles (measured vaddps x/y/z and vaddsd chains),
#   for its own results: another unit's vector result reaches it 1 cycle
#   later (xin=1; FP arithmetic below), and min/max take 2, not the
#   multiplier's 3;
# - simple vector integer operations, logic, in-lane shuffles and vector
#   shifts take 2 cycles instead of Zen 4's 1 (measured vpaddd x/z,
#   vpshufd y/z, vpsllq, vpxor+vpaddd+vpshufd chains: 2 each; numberworld
#   reports the same), in-lane shuffles run on all four pipes (measured 4
#   vpshufd per cycle), lane-crossing shuffles take 4 cycles at ymm
#   (measured vpermd 4 at ymm, 5 at zmm: 4 kept, the key does not tell the
#   widths apart), 2 per cycle;
# - (the same as zen4.mm, measured here) memory renaming of general-purpose
#   loads, indexed ones included: 1.00 cycles per iteration for a store and
#   a load of the same [rsi+rcx*8], of [rsi], of [rsi+8], and for `add
#   [rsi], 1` chains (stfwd_idx, stfwd_simple, stfwd_disp, rmw_chain):
#   `memory-renaming indexed`, one of the format's two additions for these
#   models (the other: `load-uop P+Q`).
# - a line moved between the L1 and the L2 takes a cycle of the load pipes
#   (l1-transfer 1, below: measured from the L2 against the L1).
# The form lines below restate zen4.mm's forms whose resources or
# latencies these rules change (every such form, and the forms before it of
# the same mnemonic, so that the lookup order is zen4.mm's); generated from
# zen4.mm by these rules, a comment on the lines set from a measurement of
# their own.
describe AMD Zen 5 (Turin/Granite Ridge): 8-wide dispatch, 448-entry ROB, 6 ALUs, 4 AGUs, 4+2 FP pipes, full 512-bit datapaths, 48 KiB L1D, 1 MiB L2, 32 MiB L3 per CCD
alias znver5 turin granite-ridge

# ------------------------------------------------------------- core ---
window 448                          # reorder buffer (AMD 58455; Chips and Cheese)
# scheduler 64 (zen4's) measured here: a dot-product row of gemv -O2
# (two dependent addsd per iteration, 128 per row, the next row's chain
# waiting) takes 3.22 cycles per iteration, 3.23 modelled with it, 2.35
# without; a Gauss-Seidel row 11.43, 10.29 with it, 8.09 without; 48 to
# 80 entries fit the compiled kernels alike (17.8-18.5 % static MAPE, 21.5
# % without), the loop bodies unchanged (bench/accuracy/compiled/README.md)
frontend 8                          # dispatch: 8 macro-ops per cycle (AMD 58455)
retire 8                            # retire: 8 per cycle (AMD 58455)
store-buffer 104                    # store queue: 104 entries (AMD 58455)
vector-renames 384                  # FP/vector register file: 384 512-bit entries (AMD 58455; Chips and Cheese)
taken-branch-rate 1                 # one taken branch per cycle per loop (measured: no kernel below 1.0 cycles per iteration)
# Two taken branches a cycle when the first jumped forward, never across a
# loop's back edge: a loop of two blocks (a jmp forward, then the back
# edge) 1.00 cycles an iteration, three taken branches 2.00, four 2.00
# (branches.txt tk2_jmp/tk3_jmp/tk4_jmp, 2026-11-30); two blocks of 2 to 7
# independent adds run at the ALUs' six a cycle, 1.14 for 7 macro-ops to
# 2.20 for 13 (blocks.txt, 2026-12-01, results/zen5-kvm-2026-12-01-
# blocks.csv: the model 2.00 for all before, 1.00-2.17 with this)
taken-branch-pairs forward
# A loop that reaches into a second 64-byte line with 7 or more of its
# instructions in the first (one straddling the boundary counts there)
# runs at 2 cycles per iteration; with 6 or fewer there, or all in one
# line, at its width. Measured here: the -O2 lu kernel's inner loop (9
# instructions, 34 bytes) at 1.15 cycles placed 0-30 or 40-63 bytes past a
# line, 1.97-2.00 placed 31-39; 6-9 three-byte nops and dec/jnz at 2.0 just
# where the first line holds 7 of them. The compiled lu -O2 binary had
# its loop at 32: 2.17-2.4 cycles measured, 1.03 with the same object
# linked 16 bytes later. (An op-cache entry holds up to 6 instructions of
# one line, two entries a cycle: a reading that fits these two-line loops,
# not AMD's words; a 13-op loop in one line, 3.0 cycles, and a short inner
# loop entered by falling through from its line, 2.0 at some places, are
# outside it: bench/accuracy/compiled/README.md)
fetch-line-split 64 7 2
# A mispredicted branch costs more than the ~13 cycles published: a branch
# on the top bit of a sequence of period 2^K at the end of a 5-cycle chain
# (bench/accuracy/bpred.txt, 2026-11-30, spreads under 3 % but bp14) runs
# at 5.00 cycles an iteration while the predictor holds the pattern and at
# 18.1 when it misses half, 26 cycles a miss: the model gives 17.8 with
# 24 (12.5 with 13, 15 a miss); a missed loop exit measured 45-65
# (exits.txt). The direction predictor held patterns of 8192 outcomes
# (bp13 5.01), some of 16384 (bp14 6.06, spread 46 %), none of 32768
# (bp15 16.4): with tables of 2048 entries the model gives 5.16, 10.6 and
# 15.2 (with 1024: 8192 outcomes 13 % missed, 8.8).
mispredict-penalty 24
branch-tables 2048
# Loop exits (exits.txt, 2026-11-30): predicted up to 88 trips, now and
# then to 128 (ex112 117.3 cycles a pass, ex128 129.1), missed from 160
# (207.2): the model sees 128 outcomes (23 exit nests: 6.5 % MAPE with
# its own 100, 5.8 % with 128).
branch-history 128
load-latency 4 x=7 y=7 z=7          # measured: pointer chase 4.00 cycles (ptr_chase1; 5 with an index, ptr_chase_idx: not expressible), vector load + vmovq r,x chase 9 at x, y and z (vload_*_chase) = 7 + 2
store-forward 8                     # vector store to load: measured 9.0 cycles per store + reload of a ymm (stfwd_ymm) = 8 + 1; GPR loads are renamed (below)
store-forward-wide 64 10            # a zmm store's data 2 cycles later: measured store, reload and add chains 14.0 cycles with zmm, 12.0 with xmm, ymm or a double, a store and a plain reload 11.0 zmm, 9.0 xmm or ymm (zenprobe8.txt fwd_*, 2026-12-01, spreads 0.1 %); syrk -O3's rows, stored and reloaded every k, 16.2-16.7 a block (sy_blk*_c; the model 13 before, 16 now)
store-forward-fail 12                # a load that an older store covers only in part (wider, or across its edge) waits for the store to reach the cache: measured 12.2 cycles an iteration for an 8-byte store and a zmm load over it, 12.2 for 4 then 8 bytes, 12.1 for 1 then 4, 14.6 for 8 bytes at +4 over 8 (zenprobe11.txt ff_*, 2026-12-01): the load waits for the store to retire and reach the cache; contained loads forward (0.9-1.0: ok_*); lu's row aligned, its divide's result stored and a zmm load over it, 25.1 (zenprobe9.txt lurow6_al, the model 6.5 before, 20.0 now)
load-uop p6789+p89                  # a load on any of the four AGUs; vector loads, folded ones too, on two (measured 2 ymm or zmm loads per cycle: loads_ymm8 4.31, loads_zmm8 4.23 for 8; vpaddd zmm/ymm/xmm, vaddsd, vmulpd zmm with a memory source 4 in 2.14-2.28: zenprobe3.txt)
store-uops p67+pEF
split-load 1                        # a load across two lines takes its load pipe twice: measured 4 zmm (vector) loads at +8 bytes in 4.20 cycles against 2.16 aligned, ymm across a line 4 in 4.00, GPR 4 in 2.25 (zenprobe2.txt: zmm_ld_split4 4.43, ymm_ld_split4, gpr_ld_split4 2.00)
# A gather's elements each take a line of the L2's bandwidth: the -O3
# gather kernel (vpgatherdd zmm, 16 random elements of 128 KiB a gather)
# measured 20.8 cycles a gather, 1.30 per element, the L2's 1.3 cycles a
# line (bench/accuracy/compiled, results/zen5-kvm-2026-11-29.csv: modelled
# 11.5 without, 22.1 with it)
gather-line-per-element
# A line moved between the L1 and the L2 (filled for a load or for
# ownership, or written back) takes a cycle of the load pipes (FORMAT's
# l1-transfer, as spr.mm's): loops whose data streams through the L2 and
# whose loads keep the two vector pipes busy run slower than either bound
# alone. From the L2 (bench/accuracy/zenprobe4.txt, results/zen5-kvm-
# 2026-11-30-zenprobe4-l2.csv) the compiled jacobi1d -O3 body (three zmm
# loads, two across a line, and a zmm store a line) 3.74 cycles, 2.68 from
# the L1; modelled 2.50 without this (the pipes' bound), 3.0 with it.
# zenprobe5.txt (a line an iteration loaded 3 to 8 times by zmm loads) on
# a noisy day (a busy sibling thread: the tiny loops ran 1.4-1.8 cycles,
# 1.0 the day before; results/zen5-kvm-2026-11-30-zenprobe5-{l1,l2}.csv):
# 0.2-0.5 cycles more from the L2 than from the L1 (a second such pair
# of runs: none for the loads alone, 0.6-1.0 with a store stream, as in
# the first: the loads' part is not settled). With it the compiled
# kernels (their quiet measurements of 2026-11-29) go 15.7 -> 14.6 %
# static, 15.5 -> 13.5 % traced (axpy -O2 -17 -> +4 %, jacobi1d, jacobi2d
# and heat -O3 -41/-31/-28 -> -29/-25/-22 %; syrk -O3 static +35 -> +69
# %: its static loop takes more lines from the L2 than its trace shows),
# the L2 stream probes (l2probe.txt) 6.1/6.2 -> 4.8/5.4 %, the loop bodies
# (in the L1) unchanged; 2 uses a line: 15.6 % static. Every group of load
# pipes takes the line (the model: a store's lines took only p6789 before,
# the vector pipes p89 only a vector load's own fill): the jacobi1d -O3
# body from the L2 3.0 -> 4.0 (the kernel measured 4.24-4.29), the
# compiled kernels 14.6 -> 12.8 % static, 12.7 -> 11.6 % traced with the
# branch costs above (results model11).
l1-transfer 1
split-store 1 0                     # a store across two lines commits alone: one per cycle at any width (measured GPR 4 in 4.00, ymm 4 in 4.00 against 2.00 aligned, zmm 4 in 4.00 as aligned: zenprobe2.txt gpr_st_split4, ymm_st_split4, zmm_st_split4)

# ----------------------------------------------------------- caches ---
cache L1D size=48K ways=12 line=64 latency=0             # 48 KiB 12-way (AMD 58455)
# Streams through the L2 (bench/accuracy/l2probe.txt, --data 256, two runs
# on the Zen 5 guest, results/zen5-kvm-2026-11-30-l2probe{,b}.csv): a
# 512-bit load stream takes 1.34-1.46 cycles a line, two, four and eight
# such streams 1.16-1.42 a line (not AMD's 64 B/cycle: 1); a store stream
# 1.0-1.3 a line, one store or eight to it (st64, st8_s64, st16_s64), so a
# line fetched for ownership costs less than a load's and its write-back
# costs nothing measurable (a path of its own); a copy 2.31-2.33 a line
# (one in, one for ownership), axpy 2.33-2.47 (two in). gap 1.3, ogap 1,
# wgap 0: the probes 18.0 % -> 6.1-6.2 % MAPE (gap 1, the guide's figure).
cache L2 size=1M ways=16 line=64 latency=10 gap=1.3 wgap=0 ogap=1   # 1 MiB 16-way, 14 cycles load-to-use = 4 + 10 (AMD 58455; Chips and Cheese); bandwidth as measured (above)
cache L3 size=32M ways=16 line=64 latency=46 gap=2      # 32 MiB 16-way L3 per CCD, ~50 cycles (Chips and Cheese, Zen 5): 46 over the L1; 32 B/cycle per core (estimate)

# ========================================================================
# Forms: zen4.mm's, restated where Zen 5 differs (see the header)
# ========================================================================

# ----------------------------- General-purpose moves, loads and stores ---
form mov r64,r64 - lat=0 fused=1 elim
form mov r32,r32 - lat=0 fused=1 elim
form mov r,r p012345
form mov r,i p012345
form mov r8,m p6789+p012345
form mov r16,m p6789+p012345
form mov r,m p6789 lat=0
form movzx|movsx|movsxd r,m p6789 lat=0
form movzx r,r p012345
form movsx|movsxd r,r p012345
form cbw|cwde|cdqe - p012345
form cwd - 2p012345 lat=2
form cdq|cqo - p012345
form lea r,a p012345                             # measured 1 cycle also with a scaled index (lea2_scaled_ch2: 2.00 for two)
form lea r,a3 p23 lat=2                          # measured: three components 2 cycles (lea3_chain2 4.01), 2 per cycle (lea3_indep8: 8 in 4.34)
form push r p67+pEF
form push i p67+pEF
form push m p6789+p67+pEF fused=2
form pop r p6789 lat=0
form pop m p6789+p67+pEF fused=2
form xchg r,r 2p012345 lat=1
form xchg r 2p012345 lat=1
form xchg|lock.xchg m,r p6789+p67+pEF+5p012345 lat=8 serial
form bswap r32 p012345
form bswap r64 p012345                           # measured 1 cycle (bswap_chain4 4.00)
form bswap r16 p012345
form movbe r32,m p6789+p012345
form movbe r64,m p6789+2p012345 lat=2
form movbe r16,m p6789+2p012345
form movbe m,r32 p012345+p67+pEF
form movbe m,r64 2p012345+p67+pEF lat=2
form movbe m,r16 p012345+p67+pEF
form lahf|sahf - p012345
form clc|stc|cmc - p012345
form cld|std - 3p012345 lat=3
form pushfq|pushf - p67+pEF+2p012345
form popfq|popf - p6789+6p012345 lat=5
form xlat - p6789+p012345

# --------------------------------------------------------- Integer ALU ---
form xor r32,r32 p012345 zero-idiom
form xor r64,r64 p012345 zero-idiom
form sub r32,r32 p012345 fuse zero-idiom
form sub r64,r64 p012345 fuse zero-idiom
form cmp|test m,i p012345+p6789
form add|sub|and|or|xor m,* p012345+p6789+p67+pEF fused=1
form inc|dec m,* p012345+p6789+p67+pEF fused=1
form neg|not m,* p012345+p6789+p67+pEF fused=1
form adc|sbb m,* 2p012345+p6789+p67+pEF fused=4
form add|sub r64,i p012345 fuse                  # measured: add rax,1 chains 1 cycle per add (add_imm_chain4 4.01), inc 1 (inc_chain4 4.00): not folded at rename
form inc|dec r64 p012345 fuse
form add|sub|and|cmp|test r,r p012345 fuse
form add|sub|and|cmp|test r,i p012345 fuse
form add|sub|and|cmp|test i p012345 fuse
form inc|dec r p012345 fuse
form or|xor r,r p012345
form or|xor r,i p012345
form or|xor i p012345
form neg|not r p012345
form adc|sbb r,r p012345
form adc|sbb r,i p012345
form adc|sbb i p012345
form adcx|adox r,r p012345

# ------------------------------------------------- multiply and divide ---
form imul r16,r16,i p123+p012345 lat=3
form imul r,r,i p123 lat=3                       # measured 3 cycles (imul_rri_chain2), ~3 per cycle (imul_indep4: 4 in 1.46)
form imul r,r p123 lat=3                         # measured 3 cycles (imul_chain2/4)
form imul|mul r64 p123+p012345 lat=3
form imul|mul r32 p123+p012345 lat=3
form imul|mul r16 p123+3p012345 lat=4
form imul|mul r8 p123 lat=3
form mulx r64,r64,r64 p123+p012345 lat=4
form mulx r32,r32,r32 p123+2p012345 lat=4
form div|idiv r8 p123+p012345 lat=10 div=10
form div|idiv r16 p123+p012345 lat=12 div=10
form div r32 p123+p012345 lat=8 div=6            # measured one per 6.0 cycles (div_r32_tput); latency not measured (8 assumed)
form idiv r32 p123+p012345 lat=8 div=6
form div|idiv r64 p123+p012345 lat=10 div=7      # measured: div r64 10 cycles in a chain (div_r64_chain 11 with an add), idiv r64 one per 7.0 (idiv_r64_tput)

# --------------------------------------------------------- Integer ALU ---
form shl|shr|sar|rol|ror r,i p045
form shl|shr|sar r p045
form rol|ror r p045
form rcl|rcr r,i 8p045 lat=6
form rcl|rcr r 3p045 lat=2
form shl|shr|sar|rol|ror m,* p012345+p6789+p67+pEF fused=3
form shlx|shrx|sarx r,r,r p045
form rorx r,r,i p045
form shld|shrd r,r,i p045 lat=2
form shld|shrd r,r 3p045 lat=2
form shld|shrd m,* 2p012345+p6789+p67+pEF lat=3
form bt r,r p012345
form bt r,i p012345
form bts|btr|btc r,r p012345
form bts|btr|btc r,i p012345
form bt m,i p012345+p6789
form bt m,r p6789+5p012345 lat=3
form bts|btr|btc m,i p012345+p6789+p67+pEF fused=3
form bts|btr|btc m,r p6789+p67+pEF+7p012345 lat=5
form bsf|bsr r,r p012345 lat=1
form lzcnt|tzcnt|popcnt r,r p012345 lat=1        # measured 1 cycle (popcnt_chain2, lzcnt_chain2 2.00), ~6 per cycle (popcnt_indep6: 6 in 1.18)
form andn r,r,r p012345
form blsi|blsr|blsmsk r,r p012345
form bzhi r,r,r p012345
form bextr r,r,r p012345
form pdep|pext r,r,r p123 lat=3
form crc32 r,r p123 lat=3

# ----------------------------------------- Branches, calls and returns ---
form jo|jno|jb|jnb|jz|jnz|jbe|jnbe|js|jns|jp|jnp|jl|jnl|jle|jnle rel p045
form jcxz|jecxz|jrcxz rel p012345+p045 lat=2
form loop rel 4p045+3p012345 lat=3
form loope|loopne rel 6p045+5p012345 lat=3
form jmp rel p045
form jmp r p045
form jmp m p6789+p045
form call rel p67+pEF+p045
form call r p67+pEF+p045
form call m p6789+p67+pEF+p045 fused=3
form ret - p6789+p045 fused=2
form ret i p6789+p045+p012345 fused=3
form leave - p6789+2p012345
form enter i,i 12p012345+p67+pEF lat=8

# ----------------------------------------------- NOPs, fences, atomics ---
form pause - 4p012345 lat=64
form lfence - 2p012345 serial
form mfence - p6789+pEF+p012345 serial
form prefetcht0|prefetcht1|prefetcht2|prefetchnta|prefetchw|prefetchwt1 m p6789 lat=0
form clflush|clflushopt|clwb m p6789+pEF+2p012345
form lock.add|lock.sub|lock.and|lock.or|lock.xor|lock.adc|lock.sbb m,* p6789+p67+pEF+5p012345 lat=8 serial
form lock.inc|lock.dec|lock.neg|lock.not m,* p6789+p67+pEF+5p012345 lat=8 serial
form lock.xadd m,* p6789+p67+pEF+6p012345 lat=8 serial
form lock.cmpxchg m,* p6789+p67+pEF+7p012345 lat=8 serial
form lock.cmpxchg8b|lock.cmpxchg16b m p6789+p67+pEF+16p012345 lat=32 serial
form lock.bts|lock.btr|lock.btc m,* p6789+p67+pEF+8p012345 lat=20 serial
form xadd r,r 3p012345 lat=2
form xadd m,r p6789+p67+pEF+3p012345 lat=2
form cmpxchg r,r 5p012345 lat=3
form cmpxchg m,r p6789+p67+pEF+4p012345 lat=3
form cmpxchg8b|cmpxchg16b m p6789+p67+pEF+14p012345 lat=25
form rdtsc - 15p012345 lat=56
form rdtscp - 21p012345 lat=70 serial
form rdpmc - 18p012345 lat=40 serial
form rdrand|rdseed r 25p012345 lat=110
form cpuid - 26p012345 lat=100 serial
form xgetbv - 15p012345 lat=10
form syscall|sysenter - 40p012345 lat=100 serial
form ud2|int3|hlt - p012345 serial
form xtest - 2p012345
form xbegin rel 20p012345 lat=20 serial
form xend|xabort * 20p012345 lat=20 serial

# ------------------------------------------------- String instructions ---
form rep.movsb|rep.movsw|rep.movsd|rep.movsq - 4p6789+4p67+4pEF+16p012345 lat=20 fused=24
form rep.stosb|rep.stosw|rep.stosd|rep.stosq - 4p67+4pEF+16p012345 lat=20 fused=24
form repe.cmpsb|repe.cmpsw|repe.cmpsd|repe.cmpsq|repne.cmpsb|repne.cmpsw|repne.cmpsd|repne.cmpsq - 32p6789+32p012345 lat=40 fused=48
form repe.scasb|repe.scasw|repe.scasd|repe.scasq|repne.scasb|repne.scasw|repne.scasd|repne.scasq - 16p6789+32p012345 lat=40 fused=40
form rep.lodsb|rep.lodsw|rep.lodsd|rep.lodsq - 16p6789+32p012345 lat=40 fused=40
form movsb|movsw|movsd|movsq - p6789+p67+pEF+4p012345 fused=7
form stosb|stosw|stosd|stosq - p67+pEF+2p012345 fused=4
form lodsb|lodsw|lodsd|lodsq - p6789+2p012345 fused=3
form scasb|scasw|scasd|scasq - p6789+3p012345 fused=4
form cmpsb|cmpsw|cmpsd|cmpsq - 2p6789+5p012345 fused=7

# -------------------------------------- Vector moves, loads and stores ---
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa|vmovdqu|vmovdqa32|vmovdqa64|vmovdqu32|vmovdqu64 v,v - lat=0 fused=1 elim
form movaps|movapd|movups|movupd|movdqa|movdqu x,x - lat=0 fused=1 elim
form vmovdqu8|vmovdqu16 z,z pABCD lat=2
form vmovdqu8|vmovdqu16 v,v pABCD lat=2
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa|vmovdqu|vmovdqa32|vmovdqa64|vmovdqu8|vmovdqu16|vmovdqu32|vmovdqu64|vmovntdqa|vlddqu v,m p89 lat=0
form movaps|movapd|movups|movupd|movdqa|movdqu|movntdqa|lddqu x,m p89 lat=0
form vmovss|vmovsd|movss|movsd|vmovd|vmovq|movd|movq x,m p89 lat=0
form vmovss|vmovsd|movss|movsd|vmovd|vmovq|movd|movq m,x p67+pEF
form vmovss|vmovsd x,x,x pABCD lat=2
form movss|movsd x,x pABCD lat=2
form vmovq|movq x,x pABCD lat=2
form vmovw x,m p89 lat=0
form vmovd|vmovq|movd|movq x,r pF lat=5          # GPR -> xmm: measured 1 per cycle (vmovd_r2x6: 6 in 6.0); round trip r->x->r 7 (vmovq_roundtrip) = 5 + 2
form vmovlps|vmovlpd x,x,m pABCD+p89 lat=2
form movlps|movlpd x,m pABCD+p89 lat=2
form vmovhps|vmovhpd x,x,m pABCD+p89 lat=2
form movhps|movhpd x,m pABCD+p89 lat=2
form vmovhlps|vmovlhps x,x,x pABCD lat=2
form movhlps|movlhps x,x pABCD lat=2
form vmovddup|vmovsldup|vmovshdup|movddup|movsldup|movshdup v,m p89 lat=0
form vmovsldup|vmovshdup z,z pABCD lat=2
form vmovsldup|vmovshdup|movsldup|movshdup v,v pABCD lat=2
form vmovddup|movddup v,v pABCD lat=2
form vmaskmovps|vmaskmovpd|vpmaskmovd|vpmaskmovq v,v,m pABCD+p89 lat=2
form vmaskmovps|vmaskmovpd|vpmaskmovd|vpmaskmovq m,v,v pABCD+p67+pEF lat=2
form maskmovdqu|vmaskmovdqu x,x 10p012345+p67+pEF lat=6
form vbroadcastss|vbroadcastsd|vbroadcastf128|vbroadcasti128|vbroadcastf32x4|vbroadcastf64x4|vbroadcasti32x4|vbroadcasti64x4|vbroadcastf32x8|vbroadcasti32x8|vbroadcastf64x2|vbroadcasti64x2|vpbroadcastd|vpbroadcastq v,m p89 lat=0
form vbroadcastf32x2|vbroadcasti32x2 v,m pABCD+p89 lat=2
form vpbroadcastb|vpbroadcastw v,m pABCD+p89 lat=2
form vbroadcastss|vbroadcastsd|vpbroadcastb|vpbroadcastw|vpbroadcastd|vpbroadcastq|vbroadcasti32x2|vbroadcastf32x2 x,x pABCD lat=2
form vbroadcastss|vbroadcastsd|vpbroadcastb|vpbroadcastw|vpbroadcastd|vpbroadcastq|vbroadcasti32x2|vbroadcastf32x2 v,x pBC lat=4
form vpbroadcastb|vpbroadcastw|vpbroadcastd|vpbroadcastq v,r pBC lat=4
form vpbroadcastmb2q|vpbroadcastmw2d v,k pABCD lat=2

# ------------------------------------------------------- FP arithmetic ---
# The FP adder's own results reach it in 2 cycles; a vector input from any
# other unit (multiply, FMA, min/max, compare, logic, shuffle, blend,
# vector integer, convert; through an eliminated move too) 1 cycle later:
# xin=1. Measured chains (bench/accuracy/fpbypass.txt, results/zen5-kvm-
# 2026-11-30-fpbypass.csv): vaddsd x4 8.0, vmulsd x4 12.0, (vaddsd vmulsd)
# x2 12.0 (not 10), 4 vaddsd + vmulsd (seidel's) 12.0 (not 11), vaddsd +
# FMA 7.0, vandpd/vshufpd/vblendpd/vpaddd/vcmpltpd + add 5.0 (not 4),
# vmaxsd + add 5.0; no delay into the multiplier (vminsd + vmulsd 5.0,
# vmulsd + vandpd 5.0) nor from a mask register (kernels.txt zmm_masked
# 9.0). vmaxsd/vminsd chains 2 cycles (8.0 for 4), not the multiplier's 3;
# vcvtsd2ss + vcvtss2sd 6.0: 3 each. A load's data, its own memory operand's
# too, reaches the adder a cycle late as well (zenprobe8.txt, 2026-12-01,
# spreads 0.1 %: a load, add, vmovq, and chain 13.0 cycles, with vmulpd
# 13.0 (add 2 + 1 = mul 3), with vpaddd 12.0; a store, reload and add 12.0
# where a store, reload and vmulpd or vpaddd take the add's 1 and 2 less).
form vminps|vminpd|vmaxps|vmaxpd z,z,z pAB lat=2 fused=1
form vminps|vminpd|vmaxps|vmaxpd z,z,mb pAB+p89 lat=2 fused=1
form vminps|vminpd|vmaxps|vmaxpd v,v,mb pAB+p89 lat=2
form vminps|vminpd|vmaxps|vmaxpd|vminss|vminsd|vmaxss|vmaxsd v,v,v pAB lat=2
form minps|minpd|maxps|maxpd|minss|minsd|maxss|maxsd x,x pAB lat=2
form vminss|vminsd|vmaxss|vmaxsd x,x,m pAB+p89 lat=2
form minss|minsd|maxss|maxsd x,m pAB+p89 lat=2
form vaddps|vaddpd|vsubps|vsubpd z,z,z pCD lat=2 xin=1 fused=1
form vaddps|vaddpd|vsubps|vsubpd z,z,mb pCD+p89 lat=2 xin=1 fused=1
form vaddps|vaddpd|vsubps|vsubpd v,v,mb pCD+p89 lat=2 xin=1
form vaddps|vaddpd|vsubps|vsubpd|vaddsubps|vaddsubpd|vaddss|vaddsd|vsubss|vsubsd v,v,v pCD lat=2 xin=1
form addps|addpd|subps|subpd|addsubps|addsubpd|addss|addsd|subss|subsd x,x pCD lat=2 xin=1
form vmulps|vmulpd|vscalefps|vscalefpd z,z,z pAB lat=3 fused=1
form vmulps|vmulpd|vscalefps|vscalefpd z,z,mb pAB+p89 lat=3 fused=1
form vmulps|vmulpd|vscalefps|vscalefpd v,v,mb pAB+p89 lat=3
form vmulps|vmulpd|vscalefps|vscalefpd|vmulss|vmulsd|vscalefss|vscalefsd|vgetexpss|vgetexpsd v,v,v pAB lat=3
form mulps|mulpd|mulss|mulsd x,x pAB lat=3
form vaddss|vaddsd|vsubss|vsubsd x,x,m pCD+p89 lat=2 xin=1
form addss|addsd|subss|subsd x,m pCD+p89 lat=2 xin=1
form vmulss|vmulsd|vscalefss|vscalefsd|vgetexpss|vgetexpsd x,x,m pAB+p89 lat=3
form mulss|mulsd x,m pAB+p89 lat=3
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd z,z,z pAB lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd z,z,z pAB lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd z,z,z pAB lat=4
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd z,z,mb pAB+p89 lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd z,z,mb pAB+p89 lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd z,z,mb pAB+p89 lat=4
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd v,v,mb pAB+p89 lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd v,v,mb pAB+p89 lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd v,v,mb pAB+p89 lat=4
form vfmadd132ss|vfmadd213ss|vfmadd231ss|vfmadd132sd|vfmadd213sd|vfmadd231sd|vfmsub132ss|vfmsub213ss|vfmsub231ss|vfmsub132sd|vfmsub213sd|vfmsub231sd x,x,x pAB lat=4
form vfnmadd132ss|vfnmadd213ss|vfnmadd231ss|vfnmadd132sd|vfnmadd213sd|vfnmadd231sd|vfnmsub132ss|vfnmsub213ss|vfnmsub231ss|vfnmsub132sd|vfnmsub213sd|vfnmsub231sd x,x,x pAB lat=4
form vfnmadd132ss|vfnmadd213ss|vfnmadd231ss|vfnmadd132sd|vfnmadd213sd|vfnmadd231sd|vfnmsub132ss|vfnmsub213ss|vfnmsub231ss|vfnmsub132sd|vfnmsub213sd|vfnmsub231sd x,x,m pAB+p89 lat=4
form vfmadd132ss|vfmadd213ss|vfmadd231ss|vfmadd132sd|vfmadd213sd|vfmadd231sd|vfmsub132ss|vfmsub213ss|vfmsub231ss|vfmsub132sd|vfmsub213sd|vfmsub231sd x,x,m pAB+p89 lat=4
form vgetexpps|vgetexppd z,z pAB lat=4
form vgetexpps|vgetexppd z,mb pAB+p89 lat=4
form vgetexpps|vgetexppd v,mb pAB+p89 lat=4
form vgetmantps|vgetmantpd z,z,i pAB lat=4
form vgetmantps|vgetmantpd z,mb,i pAB+p89 lat=4
form vgetmantps|vgetmantpd v,mb,i pAB+p89 lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd z,z,z,i pAB lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd z,z,mb,i pAB+p89 lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd v,v,mb,i pAB+p89 lat=4
form vcmpps|vcmppd|vcmpss|vcmpsd v,v,v,i pCD lat=2
form vcmpps|vcmppd|vcmpss|vcmpsd k,v,v,i pBC lat=7   # compare into a mask register: measured a vpcmpd k -> masked vaddps zmm chain 9 cycles (zmm_masked) with a 2-cycle vaddps: 7 for the compare and the mask's use (the {k} mask is not in the key)
form vcmpps|vcmppd k,v,mb,i pBC+p89 lat=7
form vfpclassps|vfpclasspd|vfpclassss|vfpclasssd k,v,i pBC lat=4
form vfpclassps|vfpclasspd k,mb,i pBC+p89 lat=4
form vcomiss|vcomisd|vucomiss|vucomisd|comiss|comisd|ucomiss|ucomisd x,x pCD lat=3
form vcomiss|vcomisd|vucomiss|vucomisd|comiss|comisd|ucomiss|ucomisd x,m pCD+p89 lat=3

# ----------------------------------------- FP division and square root ---
form vdivps z,z,z 3pB lat=18 div=10
form vdivps z,z,mb 3pB+p89 lat=18 div=10
form vdivpd z,z,z 3pB lat=24 div=16
form vdivpd z,z,mb 3pB+p89 lat=24 div=16
form vsqrtps z,z pB lat=20 div=4.5               # measured 2 per 9.0 cycles (vsqrtps_zmm 8.99); latency not measured
form vsqrtps z,mb 3pB+p89 lat=19 div=12
form vsqrtpd z,z 3pB lat=24 div=17
form vsqrtpd z,mb 3pB+p89 lat=24 div=17
form vdivps y,y,y pB lat=10 div=2.5              # measured 2 per 5.0 cycles (vdivps_ymm_tput 4.99)
form vdivps y,y,mb pB+p89 lat=11 div=5
form vdivpd y,y,y pB lat=13 div=8
form vdivpd y,y,mb pB+p89 lat=13 div=8
form vsqrtps y,y pB lat=12 div=6
form vsqrtps y,mb pB+p89 lat=12 div=6
form vsqrtpd y,y pB lat=13 div=9
form vsqrtpd y,mb pB+p89 lat=13 div=9
form vdivss x,x,m pB+p89 lat=11 div=3
form divss x,m pB+p89 lat=11 div=3
form vdivsd x,x,m pB+p89 lat=13 div=4
form divsd x,m pB+p89 lat=13 div=4
form vsqrtss x,x,m pB+p89 lat=12 div=3
form sqrtss x,m pB+p89 lat=12 div=3
form vsqrtsd x,x,m pB+p89 lat=13 div=4.5
form sqrtsd x,m pB+p89 lat=13 div=4.5
form vdivps|vdivss x,x,x pB lat=10 div=2.5       # FP divider on FP1: measured vdivss chain 10 cycles (vdivss_chain 9.99)
form vdivps x,x,mb pB+p89 lat=11 div=3
form vdivpd|vdivsd x,x,x pB lat=13 div=4         # measured vdivsd chain 13 (vdivsd_chain 12.99)
form vdivpd x,x,mb pB+p89 lat=13 div=4
form vsqrtps|sqrtps|sqrtss x,x pB lat=12 div=3
form vsqrtps x,mb pB+p89 lat=12 div=3
form vsqrtpd|sqrtpd|sqrtsd x,x pB lat=13 div=4.5
form vsqrtpd x,mb pB+p89 lat=13 div=4.5
form vsqrtsd x,x,x pB lat=20 div=5               # measured vsqrtsd chain 20 (vsqrtsd_chain 19.98)
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd z,z 3pB lat=6
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd z,mb 3pB+p89 lat=6
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd v,mb pB+p89 lat=4

# ------------------------------------------------------- FP arithmetic ---
form vroundps|vroundpd|vroundss|vroundsd|vrndscaless|vrndscalesd|vreducess|vreducesd x,x,x,i 2pAB lat=8
form vroundss|vroundsd|vrndscaless|vrndscalesd|vreducess|vreducesd x,x,m,i 2pAB+p89 lat=8
form roundss|roundsd x,m,i 2pAB+p89 lat=8
form vrndscaleps|vrndscalepd|vreduceps|vreducepd z,z,i 2pAB lat=8
form vrndscaleps|vrndscalepd|vreduceps|vreducepd z,mb,i 2pAB+p89 lat=8
form vrndscaleps|vrndscalepd|vreduceps|vreducepd v,mb,i 2pAB+p89 lat=8
form vxorps|vxorpd z,z,z pABCD lat=2 zero-idiom
form vxorps|vxorpd v,v,v pABCD lat=2 zero-idiom
form xorps|xorpd x,x pABCD lat=2 zero-idiom
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vblendmps|vblendmpd z,z,z pABCD lat=2
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vxorps|vxorpd|vblendmps|vblendmpd z,z,mb pABCD+p89 lat=2
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vxorps|vxorpd|vblendmps|vblendmpd v,v,mb pABCD+p89 lat=2
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vblendmps|vblendmpd v,v,v pABCD lat=2
form andps|andpd|andnps|andnpd|orps|orpd x,x pABCD lat=2
form vblendps|vblendpd v,v,v,i pABCD lat=2
form blendps|blendpd x,x,i pABCD lat=2
form vblendvps|vblendvpd|vpblendvb v,v,v,v pABCD lat=2                  # measured 2 cycles per blend in a chain (vblendvps_chain 4.00 for two); one µop
form blendvps|blendvpd|pblendvb x,x pABCD lat=2
form vdpps v,v,v,i 2pAB+p012345+2pCD+pBC lat=15
form dpps x,x,i 2pAB+p012345+2pCD+pBC lat=15

# --------------------------------------------------------- Conversions ---
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq z,z pCD lat=4
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq z,mb pCD+p89 lat=4
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq v,mb pCD+p89 lat=4
form vcvtph2ps|vcvtph2psx x,x pCD+pBC lat=6
form vcvtph2ps|vcvtph2psx y,x pCD+pBC lat=8
form vcvtph2psx z,y pCD+pBC lat=8
form vcvtps2ph x,x,i pCD+pBC lat=6
form vcvtps2ph x,y,i pCD+pBC lat=8
form vcvtps2ph y,z,i pCD+pBC lat=8
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps|vcvtph2ps z,v pCD+pBC lat=7
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps v,z pCD+pBC lat=7
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq z,mb pCD+pBC+p89 lat=7
form vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtqq2ps|vcvtuqq2ps y,mb pCD+pBC+p89 lat=7
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps v,mb pCD+pBC+p89 lat=5
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtph2ps z,m pCD+p89 lat=4
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtph2ps|cvtps2pd|cvtdq2pd v,m pCD+p89 lat=4
form vcvtss2sd|vcvtsd2ss x,x,m pCD+p89 lat=3
form vcvtss2sd|vcvtsd2ss x,x,x pCD+pBC lat=3   # measured: 3 (above)
form cvtss2sd|cvtsd2ss x,m pCD+p89 lat=3
form cvtss2sd|cvtsd2ss x,x pCD+pBC lat=3
form vcvtsi2ss|vcvtusi2ss x,x,r64 pCD+2pBC lat=7
form vcvtsi2ss|vcvtsi2sd|vcvtusi2ss|vcvtusi2sd x,x,r pF+pCD lat=7   # measured 1 per cycle (cvtsi2sd3: 3 in 3.02); round trip with vcvttsd2si 13 (cvt_roundtrip) = 7 + 6
form vcvtsi2ss|vcvtsi2sd|vcvtusi2ss|vcvtusi2sd x,x,m pCD+p89 lat=4
form cvtsi2ss x,r64 pCD+2pBC lat=7
form cvtsi2ss|cvtsi2sd x,r pCD+pBC lat=6
form cvtsi2ss|cvtsi2sd x,m pCD+p89 lat=4
form vcvtss2si|vcvttss2si|vcvtss2usi|vcvttss2usi|cvtss2si|cvttss2si r64,x 2pCD+pBC lat=7
form vcvtsd2si|vcvttsd2si|vcvtss2si|vcvttss2si|vcvtsd2usi|vcvttsd2usi|vcvtss2usi|vcvttss2usi|cvtsd2si|cvttsd2si|cvtss2si|cvttss2si r,x pCD+pEF lat=6   # measured 2 per cycle (cvttsd2si3: 3 in 1.50)
form vcvtsd2si|vcvttsd2si|vcvtss2si|vcvttss2si|vcvtsd2usi|vcvttsd2usi|vcvtss2usi|vcvttss2usi|cvtsd2si|cvttsd2si|cvtss2si|cvttss2si r,m 2pCD+p89 lat=6

# -------------------------------------------------------- Integer SIMD ---
form vpxor|vpxord|vpxorq|vpsubb|vpsubw|vpsubd|vpsubq z,z,z pABCD lat=2 zero-idiom
form vpxor|vpxord|vpxorq|vpsubb|vpsubw|vpsubd|vpsubq v,v,v pABCD lat=2 zero-idiom
form pxor|psubb|psubw|psubd|psubq x,x pABCD lat=2 zero-idiom
form vpcmpgtb|vpcmpgtw|vpcmpgtd v,v,v pABCD lat=2 zero-idiom
form pcmpgtb|pcmpgtw|pcmpgtd x,x pABCD lat=2 zero-idiom
form vpcmpeqb|vpcmpeqw|vpcmpeqd|vpcmpeqq v,v,v pABCD lat=2 zero-idiom
form pcmpeqb|pcmpeqw|pcmpeqd|pcmpeqq x,x pABCD lat=2 zero-idiom
form vpaddb|vpaddw|vpaddd|vpaddq|vpand|vpandd|vpandq|vpandn|vpandnd|vpandnq|vpor|vpord|vporq|vpblendmb|vpblendmw|vpblendmd|vpblendmq z,z,z pABCD lat=2
form vpaddd|vpaddq|vpsubd|vpsubq|vpandd|vpandq|vpandnd|vpandnq|vpord|vporq|vpxord|vpxorq|vpblendmd|vpblendmq z,z,mb pABCD+p89 lat=2
form vpaddd|vpaddq|vpsubd|vpsubq|vpandd|vpandq|vpandnd|vpandnq|vpord|vporq|vpxord|vpxorq|vpblendmd|vpblendmq v,v,mb pABCD+p89 lat=2
form vpaddb|vpaddw|vpaddd|vpaddq|vpand|vpandd|vpandq|vpandn|vpandnd|vpandnq|vpor|vpord|vporq|vpblendmb|vpblendmw|vpblendmd|vpblendmq v,v,v pABCD lat=2
form paddb|paddw|paddd|paddq|pand|pandn|por x,x pABCD lat=2
form vpternlogd|vpternlogq z,z,z,i pABCD lat=2
form vpternlogd|vpternlogq z,z,mb,i pABCD+p89 lat=2
form vpternlogd|vpternlogq v,v,mb,i pABCD+p89 lat=2
form vpternlogd|vpternlogq v,v,v,i pABCD lat=2
form vpblendd v,v,v,i pABCD lat=2
form vpblendw z,z,z,i pABCD lat=2
form vpblendw v,v,v,i pABCD lat=2
form pblendw x,x,i pABCD lat=2
form vpmovm2b|vpmovm2w|vpmovm2d|vpmovm2q z,k pABCD lat=2
form vpmovm2b|vpmovm2w|vpmovm2d|vpmovm2q v,k pABCD lat=2
form vpmovb2m|vpmovw2m|vpmovd2m|vpmovq2m k,v pABCD lat=2
form vpminsq|vpminuq|vpmaxsq|vpmaxuq v,v,v pABCD lat=2
form vpminsq|vpminuq|vpmaxsq|vpmaxuq v,v,mb pABCD+p89 lat=2
form vpminsb|vpminsw|vpminsd|vpminub|vpminuw|vpminud|vpmaxsb|vpmaxsw|vpmaxsd|vpmaxub|vpmaxuw|vpmaxud z,z,z pABCD lat=2
form vpavgb|vpavgw|vpaddsb|vpaddsw|vpaddusb|vpaddusw|vpsubsb|vpsubsw|vpsubusb|vpsubusw z,z,z pABCD lat=2
form vpminsd|vpminud|vpmaxsd|vpmaxud z,z,mb pABCD+p89 lat=2
form vpminsd|vpminud|vpmaxsd|vpmaxud v,v,mb pABCD+p89 lat=2
form vpminsb|vpminsw|vpminsd|vpminub|vpminuw|vpminud|vpmaxsb|vpmaxsw|vpmaxsd|vpmaxub|vpmaxuw|vpmaxud v,v,v pABCD lat=2
form vpavgb|vpavgw|vpaddsb|vpaddsw|vpaddusb|vpaddusw|vpsubsb|vpsubsw|vpsubusb|vpsubusw|vpsignb|vpsignw|vpsignd v,v,v pABCD lat=2
form pminsb|pminsw|pminsd|pminub|pminuw|pminud|pmaxsb|pmaxsw|pmaxsd|pmaxub|pmaxuw|pmaxud|pavgb|pavgw|paddsb|paddsw|paddusb|paddusw|psubsb|psubsw|psubusb|psubusw|psignb|psignw|psignd x,x pABCD lat=2
form vpabsb|vpabsw|vpabsd|vpabsq z,z pABCD lat=2
form vpabsd|vpabsq z,mb pABCD+p89 lat=2
form vpabsd|vpabsq v,mb pABCD+p89 lat=2
form vpabsb|vpabsw|vpabsd|vpabsq v,v pABCD lat=2
form pabsb|pabsw|pabsd x,x pABCD lat=2
form vpcmpgtq v,v,v pABCD lat=2
form pcmpgtq x,x pABCD lat=2
form vpcmpeqb|vpcmpeqw|vpcmpeqd|vpcmpeqq|vpcmpgtb|vpcmpgtw|vpcmpgtd|vpcmpgtq|vptestmb|vptestmw|vptestmd|vptestmq|vptestnmb|vptestnmw|vptestnmd|vptestnmq k,v,v pBC lat=7
form vpcmpeqd|vpcmpeqq|vpcmpgtd|vpcmpgtq|vptestmd|vptestmq|vptestnmd|vptestnmq k,v,mb pBC+p89 lat=7
form vpcmpb|vpcmpw|vpcmpd|vpcmpq|vpcmpub|vpcmpuw|vpcmpud|vpcmpuq k,v,v,i pBC lat=7
form vpcmpd|vpcmpq|vpcmpud|vpcmpuq k,v,mb,i pBC+p89 lat=7
form vptest|vtestps|vtestpd|ptest v,v pEF+pBC lat=4
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq z,z,x 2pBC lat=2
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq y,y,x 2pBC lat=2
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq x,x,x 2pBC lat=2
form psllw|pslld|psllq|psrlw|psrld|psrlq|psraw|psrad x,x 2pBC lat=2
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq z,z,i pBC lat=2
form vpslld|vpsllq|vpsrld|vpsrlq|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq z,mb,i pBC+p89 lat=2
form vpslld|vpsllq|vpsrld|vpsrlq|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq v,mb,i pBC+p89 lat=2
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq v,v,i pBC lat=2
form psllw|pslld|psllq|psrlw|psrld|psrlq|psraw|psrad x,i pBC lat=2
form vpsllvw|vpsllvd|vpsllvq|vpsrlvw|vpsrlvd|vpsrlvq|vpsravw|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq z,z,z pBC lat=2
form vpsllvd|vpsllvq|vpsrlvd|vpsrlvq|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq z,z,mb pBC+p89 lat=2
form vpsllvd|vpsllvq|vpsrlvd|vpsrlvq|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq v,v,mb pBC+p89 lat=2
form vpsllvw|vpsllvd|vpsllvq|vpsrlvw|vpsrlvd|vpsrlvq|vpsravw|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq v,v,v pBC lat=2
form vpslldq|vpsrldq z,z,i pBC lat=2
form vpslldq|vpsrldq v,v,i pBC lat=2
form pslldq|psrldq x,i pBC lat=2
form vpmullw|vpmulhw|vpmulhuw|vpmulhrsw|vpmuludq|vpmuldq|vpmaddwd|vpmaddubsw z,z,z pAD lat=3 fused=1
form vpmuludq|vpmuldq z,z,mb pAD+p89 lat=3 fused=1
form vpmuludq|vpmuldq v,v,mb pAD+p89 lat=3
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds z,z,z pAD lat=5
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds z,z,mb pAD+p89 lat=5
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds v,v,mb pAD+p89 lat=5
form vpmulld z,z,z pAD lat=3 fused=1
form vpmulld z,z,mb pAD+p89 lat=3 fused=1
form vpmulld v,v,mb pAD+p89 lat=3
form vpmullq z,z,z pAD lat=3 fused=1
form vpmullq z,z,mb pAD+p89 lat=3 fused=1
form vpmullq v,v,mb pAD+p89 lat=3
form vpclmulqdq v,v,v,i pBC lat=4
form pclmulqdq x,x,i pBC lat=4
form vpsadbw v,v,v pBC lat=4
form vdbpsadbw v,v,v,i pBC lat=4
form psadbw x,x pBC lat=4
form vmpsadbw v,v,v,i 2pBC lat=4
form mpsadbw x,x,i 2pBC lat=4
form vplzcntd|vplzcntq z,z pABCD lat=4
form vplzcntd|vplzcntq z,mb pABCD+p89 lat=4
form vplzcntd|vplzcntq v,mb pABCD+p89 lat=4
form vpconflictd z,z 17pBC+20pABCD lat=27
form vpconflictq z,z 9pBC+13pABCD lat=17
form vpopcntb|vpopcntw|vpopcntd|vpopcntq v,v pBC lat=4
form vpopcntd|vpopcntq v,mb pBC+p89 lat=4
form vpshufb|vpunpcklbw|vpunpckhbw|vpunpcklwd|vpunpckhwd|vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq z,z,z pABCD lat=2
form vpshufb|vpunpcklbw|vpunpckhbw|vpunpcklwd|vpunpckhwd|vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq v,v,v pABCD lat=2
form vpermilps|vpermilpd|vunpcklps|vunpckhps|vunpcklpd|vunpckhpd v,v,v pABCD lat=2
form vpacksswb|vpackssdw|vpackuswb|vpackusdw v,v,v pBC lat=4
form vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq z,z,mb pABCD+p89 lat=2
form vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq v,v,mb pABCD+p89 lat=2
form vpermilps|vpermilpd|vunpcklps|vunpckhps|vunpcklpd|vunpckhpd v,v,mb pABCD+p89 lat=2
form vpackssdw|vpackusdw v,v,mb pBC+p89 lat=4
form vinsertps x,x,m,i pABCD+p89 lat=2
form insertps x,m,i pABCD+p89 lat=2
form vshufps|vshufpd z,z,z,i pABCD lat=2
form vshufps|vshufpd v,v,v,i pABCD lat=2
form vpalignr|vinsertps v,v,v,i pABCD lat=2
form vshufps|vshufpd z,z,mb,i pABCD+p89 lat=2
form vshufps|vshufpd v,v,mb,i pABCD+p89 lat=2
form vpshufd|vpshuflw|vpshufhw z,z,i pABCD lat=2
form vpshufd|vpshuflw|vpshufhw v,v,i pABCD lat=2
form vpermilps|vpermilpd v,v,i pABCD lat=2
form vpshufd z,mb,i pABCD+p89 lat=2
form vpshufd v,mb,i pABCD+p89 lat=2
form vpermilps|vpermilpd v,mb,i pABCD+p89 lat=2
form pshufb|punpcklbw|punpckhbw|punpcklwd|punpckhwd|punpckldq|punpckhdq|punpcklqdq|punpckhqdq x,x pABCD lat=2
form unpcklps|unpckhps|unpcklpd|unpckhpd x,x pABCD lat=2
form packsswb|packssdw|packuswb|packusdw x,x pBC lat=4
form shufps|shufpd|pshufd|pshuflw|pshufhw x,x,i pABCD lat=2
form palignr|insertps x,x,i pABCD lat=2
form vpermps|vpermpd|vpermd|vpermq|vpermt2d|vpermt2q|vpermt2ps|vpermt2pd|vpermi2d|vpermi2q|vpermi2ps|vpermi2pd|vpermw|vpermt2w|vpermi2w|vpermb|vpermt2b|vpermi2b v,v,v pBC lat=4   # measured vpermd 4 cycles at ymm (vpermd_chain2 7.99), 5 at zmm (vpermd_z_chain2 9.99), 2 per cycle at both (vpermd_indep6, permd_zmm3)
form vpermps|vpermpd|vpermd|vpermq|vpermt2d|vpermt2q|vpermt2ps|vpermt2pd|vpermi2d|vpermi2q|vpermi2ps|vpermi2pd v,v,mb pBC+p89 lat=4
form vpermq|vpermpd v,v,i pBC lat=4
form vpermq|vpermpd v,mb,i pBC+p89 lat=4
form vperm2f128|vperm2i128|vshuff32x4|vshuff64x2|vshufi32x4|vshufi64x2|valignd|valignq v,v,v,i pBC lat=4
form vshuff32x4|vshuff64x2|vshufi32x4|vshufi64x2|valignd|valignq v,v,mb,i pBC+p89 lat=4
form vinsertf128|vinserti128|vinsertf32x4|vinsertf64x2|vinserti32x4|vinserti64x2|vinsertf32x8|vinsertf64x4|vinserti32x8|vinserti64x4 v,v,m,i pABCD+p89 lat=2
form vinsertf128|vinserti128|vinsertf32x4|vinsertf64x2|vinserti32x4|vinserti64x2|vinsertf32x8|vinsertf64x4|vinserti32x8|vinserti64x4 v,v,v,i pBC lat=4
form vextractf128|vextracti128|vextractf32x4|vextractf64x2|vextracti32x4|vextracti64x2|vextractf32x8|vextractf64x4|vextracti32x8|vextracti64x4 m,v,i p67+pEF
form vextractf128|vextracti128|vextractf32x4|vextractf64x2|vextracti32x4|vextracti64x2|vextractf32x8|vextractf64x4|vextracti32x8|vextracti64x4 v,v,i pBC lat=4
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq x,m pABCD+p89 lat=2
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq v,m pBC+p89 lat=4
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq x,x pABCD lat=2
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq v,v pBC lat=4
form pmovzxbw|pmovzxbd|pmovzxbq|pmovzxwd|pmovzxwq|pmovzxdq|pmovsxbw|pmovsxbd|pmovsxbq|pmovsxwd|pmovsxwq|pmovsxdq x,m pABCD+p89 lat=2
form pmovzxbw|pmovzxbd|pmovzxbq|pmovzxwd|pmovzxwq|pmovzxdq|pmovsxbw|pmovsxbd|pmovsxbq|pmovsxwd|pmovsxwq|pmovsxdq x,x pABCD lat=2
form vpmovqd|vpmovsqd|vpmovusqd v,v pBC lat=4
form vpmovqd|vpmovsqd|vpmovusqd m,v pABCD+p67+pEF lat=2
form vpmovwb|vpmovdb|vpmovdw|vpmovqb|vpmovqw|vpmovswb|vpmovsdb|vpmovsdw|vpmovsqb|vpmovsqw|vpmovuswb|vpmovusdb|vpmovusdw|vpmovusqb|vpmovusqw v,v 2pBC lat=4
form vpmovwb|vpmovdb|vpmovdw|vpmovqb|vpmovqw|vpmovswb|vpmovsdb|vpmovsdw|vpmovsqb|vpmovsqw|vpmovuswb|vpmovusdb|vpmovusdw|vpmovusqb|vpmovusqw m,v 2pABCD+p67+pEF lat=2
form vcompressps|vcompresspd|vpcompressd|vpcompressq v,v 2pBC lat=4
form vcompressps|vcompresspd|vpcompressd|vpcompressq m,v 2pABCD+p67+pEF lat=2
form vexpandps|vexpandpd|vpexpandd|vpexpandq v,v 2pBC lat=4
form vexpandps|vexpandpd|vpexpandd|vpexpandq v,m 2pBC+p89 lat=4
form vpinsrb|vpinsrw|vpinsrd|vpinsrq x,x,r,i 2pBC lat=4
form vpinsrb|vpinsrw|vpinsrd|vpinsrq x,x,m,i pABCD+p89 lat=2
form pinsrb|pinsrw|pinsrd|pinsrq x,r,i 2pBC lat=4
form pinsrb|pinsrw|pinsrd|pinsrq x,m,i pABCD+p89 lat=2
form vpextrb|vpextrw|vpextrd|vpextrq|vextractps|pextrb|pextrw|pextrd|pextrq|extractps r,x,i pEF+pBC lat=4
form vpextrb|vpextrw|vpextrd|vpextrq|vextractps|pextrb|pextrw|pextrd|pextrq|extractps m,x,i pABCD+p67+pEF lat=2
form vaesenc|vaesenclast|vaesdec|vaesdeclast z,z,z pAB lat=3
form vaeskeygenassist|aeskeygenassist x,x,i 14p012345 lat=7
form vpcmpestri|pcmpestri|vpcmpestrm|pcmpestrm x,x,i 8p012345 lat=16

# ------------------------------------------------ Gathers and scatters ---
form vgatherdps|vpgatherdd y,m,y p6789+10p6789+pEF+pBC+pABCD lat=12 fused=4   # measured 12.0 cycles per gather whose merged destination chains the loop (gather_ymm)
form vgatherdps|vpgatherdd x,m,x 8p89+2pABCD+pBC lat=4 fused=4
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq y,m,y 8p89+2pABCD+pBC lat=4 fused=4
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq x,m,x 6p89+2pABCD+pBC lat=3 fused=4
form vgatherqps|vpgatherqd x,m,x 8p89+2pABCD+pBC lat=4 fused=4
form vgatherdps|vpgatherdd z,m 22p89+2pABCD+pBC lat=10 fused=5
form vgatherdps|vpgatherdd y,m 11p89+2pABCD+pBC lat=5 fused=5
form vgatherdps|vpgatherdd x,m 8p89+2pABCD+pBC lat=4 fused=5
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq z,m 11p89+2pABCD+pBC lat=5 fused=5
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq y,m 8p89+2pABCD+pBC lat=4 fused=5
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq x,m 6p89+2pABCD+pBC lat=3 fused=5
form vgatherqps|vpgatherqd y,m 11p89+2pABCD+pBC lat=5 fused=5
form vgatherqps|vpgatherqd x,m 8p89+2pABCD+pBC lat=4 fused=5

# ------------------------------------------------------ Mask registers ---
form kmovb|kmovw|kmovd|kmovq k,r pABCD lat=2
form kmovb|kmovw|kmovd|kmovq r,k pEF lat=3
form kmovb|kmovw|kmovd|kmovq k,k pEF
form kmovb|kmovw|kmovd|kmovq k,m p6789 lat=0

# ----------------------------------------------------------------- x87 ---
form fld|fild m32 p6789 lat=3
form fld m64 p6789 lat=3
form fld m80 2pAB+2p6789 lat=4 fused=4
form fild m pAB+p6789 lat=6
form fst|fstp m32 pAB+p67+pEF lat=4
form fst|fstp m64 pAB+p67+pEF lat=4
form fstp m80 3p012345+2p67+2pEF lat=5 fused=7
form fadd|fsub|fsubr|fcom|fcomp m pCD+p6789 lat=3
form fmul m pAB+p6789 lat=4
form fdiv|fdivr m pAB+p6789 lat=15 div=4
form fiadd|fisub|fisubr|ficom|ficomp m 2pCD+p6789 lat=6
form fimul m pAB+pCD+p6789 lat=8
form fidiv|fidivr m pAB+pCD+p6789 lat=18 div=4
form frndint - 17p012345 lat=21
form fxam - 2p012345 lat=2
form fnstsw - pAB+p012345 lat=3
form fnstcw m p045+p67+pEF
form fldcw m p6789+pAB+pABCD lat=7
form fwait - 2p012345
form fnstenv|fldenv|fnsave|frstor|fxsave|fxrstor|fxsave64|fxrstor64 m 60p012345+10p6789+10p67+10pEF lat=60 fused=80

# --------------------------------------------------- MXCSR, vzeroupper ---
form vzeroall - 12p012345 lat=0 fused=25
form vldmxcsr|ldmxcsr m p6789+pABCD+2p012345 lat=7
form vstmxcsr|stmxcsr m pABCD+p012345+p67+pEF
form emms - 9pABCD+p012345 lat=10

# -------------------------------------------------- Category fallbacks ---
category gather|avx2gather * 11p89+2pABCD+pBC lat=5 fused=5
category vfma|ufma|fma4 v,v,m pABCD+p89 lat=4
category convert v,m pABCD+pBC+p89 lat=5
category broadcast v,m p89 lat=0
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend m,* p67+pEF
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,m p89 lat=0
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,m pABCD+p89 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,m,* pABCD+p89 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,mb pABCD+p89 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,mb,* pABCD+p89 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend z,* pABCD lat=3
category x87_alu|fcmov m,* pAB+p6789 lat=4
category cmov r,m p012345+p6789
category cmov * p012345
category setcc m,* p012345+p67+pEF
category setcc * p012345
category shift|rotate m,* p012345+p6789+p67+pEF fused=3
category shift|rotate * p012345
category bitbyte|bmi1|bmi2|lzcnt|tbm * p012345 lat=1
category binary|logical|dataxfer|flagop|misc m,* p012345+p6789+p67+pEF
category binary|logical|dataxfer|flagop|misc r,m p012345+p6789
category binary|logical|dataxfer|flagop|misc r,m,* p012345+p6789
category binary|logical|dataxfer|flagop|misc * p012345
category pop * p6789 lat=0
category call * p67+pEF+p045
category ret * p6789+p045 fused=2
category cond_br|uncond_br * p045
category stringop|iostringop * 4p6789+4p67+4pEF+16p012345 lat=20 fused=24
category prefetch|cldemote|clflushopt|clwb * p6789 lat=0
category semaphore * p6789+p67+pEF+6p012345 lat=20 serial
category system|syscall|sysret|interrupt|serialize|io|segop|xsave|xsaveopt|sgx|vtx|tsx_ldtrk|rdpid|rdrand|rdseed|rdwrfsgs|pconfig|uintr|waitpkg * 20p012345 lat=30 serial
category * * p012345 lat=1

# ------------------------------------------------------- cmov conditions ---
# A cmov whose condition combines flags (be/nbe: CF and ZF; l/nl: SF and OF;
# le/nle: ZF, SF and OF) is slower than one testing a single flag: measured
# cmp rax,r12 + cmovle/cmovl/cmovge/cmova rax,r13 chains 3.0 cycles against
# 2.0 for cmovb/cmovz/cmovs (the flags reach it a cycle later), and 12
# independent cmovle or cmova in 6.4 cycles against 3.0 for cmovz: two per
# cycle (zenprobe2.txt: cmovle_ch, cmova_ind12 6.38, cmovz_ind12; editdist_regs, the -O2 editdist chain, 6.00). The chain
# from the data operand measured 1 cycle (cmovle_data: 2.0 with an add); the
# model has one latency per form and takes the flags' 2. The two ports are
# not known (p12 here).
form cmovbe|cmovnbe|cmovl|cmovnl|cmovle|cmovnle r,r p12 lat=2
