machine skx
# gus machine model: Intel Skylake-SP / Cascade Lake (Xeon Scalable), Skylake-X
# and Cascade Lake-X (Core-X). Format: data/machines/FORMAT.
#
# Sources of the numbers: the Intel 64 and IA-32 Architectures Optimization
# Reference Manual (Skylake server chapter), Agner Fog's instruction tables and
# microarchitecture guide, the measurements published by uops.info for SKL/SKX/
# CLX, WikiChip, and llvm-mca 14 (-mcpu=skylake-avx512) as a cross-check of
# µop counts, latencies and port pressure. Where the sources disagree, the
# comment next to the line says which value was kept and why.
#
# Conventions of this file
# - Port groups: p0156 = integer ALU, p06 = branch/shift/cmov unit, p15 = slow
#   LEA / bit-manipulation, p1 = integer multiply / 3-cycle unit, p015 = vector
#   ALU (xmm/ymm), p01 = FP add/mul/FMA and the "p01-class" integer ops
#   (min/max, abs, avg, saturating add, compare into a vector, shifts), p5 =
#   shuffle unit, p0 = divider, p23 = load AGU+data, p237 = store address,
#   p4 = store data.
# - 512-bit µops: ports 0 and 1 are fused into one 512-bit unit on port 0, and
#   port 5 has its own 512-bit unit (FMA, logic, add, shuffles). So a µop that
#   runs on p015 (or p01 for FP add/mul/FMA) at xmm/ymm runs on p05 at zmm, and
#   a p01-class integer op (min/max, abs, shifts, ...) runs on p0 only at zmm.
#   This assumes the 2-FMA parts (Gold 6xxx, Platinum, Core-X); on 1-FMA parts
#   the FP µops marked p05 below would be p0.
# - Forms are written for the register operands; the memory versions are
#   derived by the rule of FORMAT (one p23 µop per memory source, p237+p4 per
#   memory destination). Memory forms are written out only for pure loads and
#   stores and where the memory version differs (RMW without macro-fusion,
#   broadcasts, inserts, GPR<->vector mixes, gathers, scatters, ...).
# - Pure loads are written with lat=0: the model adds the load latency of the
#   destination kind (load-latency below) to every form with a memory source.
# - Eliminated moves and NOPs are written `- lat=0 fused=1`: no µop executes,
#   but they still take an issue slot and a ROB entry.
# - EVEX {k} masking is not part of the key, so a masked form costs the same
#   as the unmasked one (see the notes at the moves and loads).
describe Intel Skylake-SP / Cascade Lake (SKX/CLX): 4-wide, 224-entry ROB, 8 ports, AVX-512 with 2 FMA units, 1 MiB L2, 1.375 MiB L3 slice per core
alias clx skylake-avx512 cascadelake skylake-sp skylake-x

# ------------------------------------------------------------- core ---
ports 0 1 2 3 4 5 6 7               # Skylake ports: 0 1 5 6 ALU, 2 3 load+AGU, 4 store data, 7 store AGU
window 224                          # reorder buffer entries (Intel opt. manual, WikiChip; same as client SKL)
frontend 4                          # rename/allocate width: 4 fused-domain µops per cycle (the DSB delivers 6, rename is the limit)
retire 4                            # retirement: 4 fused-domain µops per cycle per thread (Intel Optimization Reference Manual, Skylake client microarchitecture: the ROB retires up to 4 µops per cycle)
# The front end follows one taken branch per cycle (the µop cache delivers
# from one 32-byte window per cycle, and only port 6 executes taken
# branches): a loop never runs faster than one iteration per cycle.
taken-branch-rate 1
mispredict-penalty 16               # ~16-17 cycles measured on SKL/SKX from the µop cache (Agner: 15-20); kept as the redirect-to-issue gap
load-latency 5 x=6 y=7 z=8          # L1 load-to-use: GPR 4 (simple pointer chase) to 5 (indexed, the common case), xmm 6, ymm 7, zmm 8 (uops.info ≤6/≤7/≤8)
store-forward 5                     # store-to-load forwarding: 4-5 cycles GPR, 5-6 vector (Agner); 5 kept

# ----------------------------------------------------------- caches ---
cache L1D size=32K ways=8 line=64 latency=0          # 32 KiB 8-way 64 sets
cache L2 size=1M ways=16 line=64 latency=9 gap=2     # 1 MiB 16-way private L2, ~14 cycles load-to-use = 5 + 9; L2->L1 64 B/cycle peak, ~32-40 B/cycle sustained -> ~2 cycles per line
cache L3 size=1408K ways=11 line=64 latency=55 gap=4 # one 1.375 MiB 11-way slice per core (non-inclusive, mesh); ~50-70 cycles load-to-use, ~60 -> 55 over L1; ~16 B/cycle per core -> 4 cycles per line
memory latency=195 gap=13           # DRAM ~80 ns local = ~200 cycles at 2.5 GHz -> 195 over L1; one core sustains ~12 GB/s = 4.8 B/cycle at 2.5 GHz -> ~13 cycles per line
btb sets=1024 ways=4                # ~4K-entry main BTB (not documented by Intel; reverse-engineering estimates for Skylake)
divider 1                           # one radix-16 divider on port 0, shared by integer and FP division and square root
load-uop p23                        # a load µop runs on port 2 or 3
store-uops p237+p4                  # store-address µop on port 2, 3 or 7 (simple addressing), store-data µop on port 4

# ========================================================================
# General-purpose moves, loads and stores
# ========================================================================
form mov r64,r64 - lat=0 fused=1 elim            # move elimination at rename (SKL/SKX eliminate 32/64-bit GPR moves)
form mov r32,r32 - lat=0 fused=1 elim
form mov r,r p0156                               # 8/16-bit moves merge into the old register: not eliminated
form mov r,i p0156                               # also movabs r64, imm64
form mov r8,m p23+p0156                          # SKL does not rename low 8/16-bit registers apart: a load into al/ax needs an ALU merge µop (llvm-mca counts 1 µop)
form mov r16,m p23+p0156
form mov r,m p23 lat=0                           # pure load
form mov m,r p237+p4                             # store: 1 fused µop
form mov m,i p237+p4
form movnti m,r p237+p4                          # non-temporal store
form movzx|movsx|movsxd r,m p23 lat=0            # the load unit zero/sign-extends: pure load
form movzx|movsx|movsxd r,r p0156                # not eliminated on SKL (movzx r32,r8 only sometimes; not modelled)
form cbw|cwde|cdqe - p0156
form cwd - 2p0156
form cdq|cqo - p06                               # sign into edx/rdx
form lea r,a p15                                 # 1 or 2 components: 1 cycle on p1 or p5
form lea r,a3 p1 lat=3                           # base+index+disp: slow LEA, 3 cycles on p1
form push r p237+p4                              # stack engine updates rsp: 1 fused µop
form push i p237+p4
form push m p23+p237+p4 fused=2                  # load + store: 2 fused
form pop r p23 lat=0                             # load; rsp handled by the stack engine
form pop m p23+p237+p4 fused=2                   # load + store: 2 fused
form xchg r,r 3p0156 lat=2                       # 3 µops, 2 cycles
form xchg r 3p0156 lat=2                         # short accumulator form: eax/rax is implicit in the key
form xchg|lock.xchg m,r p23+p237+p4+5p0156 lat=18 serial   # memory operand: implicitly locked, ~18-20 cycles, full fence (8 µops)
form bswap r32 p15
form bswap r64 p06+p15 lat=2
form bswap r16 p15
form movbe r32,m p23+p15                         # load + byte swap
form movbe r64,m p23+p06+p15 lat=2
form movbe r16,m p23+p15
form movbe m,r32 p15+p237+p4
form movbe m,r64 p06+p15+p237+p4 lat=2
form movbe m,r16 p15+p237+p4
form lahf|sahf - p06
form clc|stc|cmc - p0156
form cld|std - 3p0156 lat=3
form pushfq|pushf - p237+p4+p0156                 # 3 µops
form popfq|popf - p23+8p0156 lat=20                # microcoded, ~20 cycles
form xlat - p23+p0156

# ========================================================================
# Integer ALU
# ========================================================================
# Zero idioms: xor/sub of a 32/64-bit register with itself is removed at
# rename (no µop, no dependency). 8/16-bit forms are partial writes, not
# idioms. sbb r,r same register keeps its flags dependency and executes.
form xor r32,r32 p0156 zero-idiom
form xor r64,r64 p0156 zero-idiom
form sub r32,r32 p0156 fuse zero-idiom
form sub r64,r64 p0156 fuse zero-idiom
# Memory-destination and memory-immediate forms written out: they never
# macro-fuse (SKL fuses cmp/test/add/sub/and/inc/dec with a following jcc
# for reg,reg / reg,imm / reg,mem / mem,reg operands, not with mem,imm and
# not when the memory operand is the destination).
form cmp|test m,i p0156+p23                      # micro-fused load+op, no macro-fusion
form add|sub|and|or|xor m,* p0156+p23+p237+p4    # RMW: 4 µops, 2 fused
form inc|dec m,* p0156+p23+p237+p4 fused=3       # RMW inc/dec: 3 fused (flags merge; Agner)
form neg|not m,* p0156+p23+p237+p4
form adc|sbb m,* p06+p0156+p23+p237+p4 fused=4   # RMW adc/sbb: 5-6 µops (llvm-mca: 6), 4 fused
# Register forms (the memory-source versions are derived: + p23, fused)
form add|sub|and|cmp|test r,r p0156 fuse
form add|sub|and|cmp|test r,i p0156 fuse
form add|sub|and|cmp|test i p0156 fuse           # al/ax/eax/rax short forms: the register is implicit in the key
form inc|dec r p0156 fuse
form or|xor r,r p0156                            # or/xor do not macro-fuse on SKL
form or|xor r,i p0156
form or|xor i p0156
form neg|not r p0156
form adc|sbb r,r p06                             # 1 µop since Broadwell
form adc|sbb r,i p06
form adc|sbb i p06
form adcx|adox r,r p06

# ------------------------------------------------ multiply and divide ---
form imul r16,r16,i p1+p0156 lat=4               # 16-bit: extra merge µop
form imul r,r,i p1 lat=3
form imul r,r p1 lat=3
form imul|mul r64 p1+p5 lat=3                    # rdx:rax <- rax * r64: rax after 3, rdx after 4 cycles (kept 3)
form imul|mul r32 p1+p5+p0156 lat=4              # 3 µops
form imul|mul r16 p1+p5+2p0156 lat=4             # 4 µops
form imul|mul r8 p1 lat=3                        # ax <- al * r8
form mulx r64,r64,r64 p1+p5 lat=4                # 2 µops (Agner/uops.info; llvm-mca says 3)
form mulx r32,r32,r32 p1+p5+p0156 lat=4
# Integer division is microcoded and uses the divider on port 0. Latency
# depends on the operand values; typical values are kept (Agner SKL/SKX):
# div/idiv r8 and r16: ~23 µops, 25 cycles, one per 6 cycles; r32: 10 µops,
# 26 cycles, one per 6; div r64: 36 µops, 35-88 cycles, one per 21-83 (kept:
# 40 / 24, quotients that fit in 32 bits are the common case); idiv r64: 57
# µops, 42-95 cycles, one per 24-90 (kept: 48 / 28). llvm-mca 14 models these
# with a flat 76/102 cycles, which is too pessimistic for typical operands.
form div|idiv r8 p0+22p0156 lat=25 div=6
form div|idiv r16 p0+22p0156 lat=25 div=6
form div|idiv r32 p0+9p0156 lat=26 div=6
form div r64 p0+35p0156 lat=40 div=24
form idiv r64 p0+56p0156 lat=48 div=28

# -------------------------------------------------- shifts and rotates ---
# The key of a shift by 1 (D1 /n) and of a shift by cl (D3 /n) is the same
# ("shl r32"): the count operand is implicit in Zydis. With BMI2 compilers
# use shlx/shrx/sarx for variable counts, so the plain form is modelled as a
# shift by 1 (1 µop p06); rotates by cl are kept as 2 µops since rotate by 1
# is rare in compiled code.
form shl|shr|sar|rol|ror r,i p06
form shl|shr|sar r p06                           # by 1 (by cl would be 3 µops: 2p06+p0156, see above)
form rol|ror r 2p06                              # by cl
form rcl|rcr r,i 8p0156 lat=6                    # rare: microcoded
form rcl|rcr r 3p06 lat=2                        # by 1
form shl|shr|sar|rol|ror m,* p06+p23+p237+p4 fused=3   # RMW shift/rotate by imm or 1
form shlx|shrx|sarx r,r,r p06
form rorx r,r,i p06
form shld|shrd r,r,i p1 lat=3
form shld|shrd r,r p1+2p06+p0156 lat=4           # by cl (key: count implicit); 4 µops
form shld|shrd m,* p1+p23+p237+p4+p06 lat=3

# ------------------------------------------------------ bit operations ---
form bt r,r p06
form bt r,i p06
form bts|btr|btc r,r p06
form bts|btr|btc r,i p06
form bt m,i p06+p23
form bt m,r p23+9p0156 lat=3                     # bit string addressing: ~10 µops
form bts|btr|btc m,i p06+p23+p237+p4 fused=3
form bts|btr|btc m,r p23+p237+p4+8p0156 lat=3    # ~11 µops
form bsf|bsr r,r p1 lat=3
form lzcnt|tzcnt|popcnt r,r p1 lat=3             # false dependency on the destination on SKL (not modelled)
form andn r,r,r p15                              # BMI1
form blsi|blsr|blsmsk r,r p15
form bzhi r,r,r p15                              # BMI2
form bextr r,r,r p06+p15 lat=2
form pdep|pext r,r,r p1 lat=3
form crc32 r,r p1 lat=3                          # SSE4.2

# ----------------------------------------------------- cmov and setcc ---
# Condition codes that read both CF and ZF (be/nbe = "a") need 2 µops.
form cmovbe|cmovnbe r,r 2p06 lat=2
form cmovo|cmovno|cmovb|cmovnb|cmovz|cmovnz|cmovs|cmovns|cmovp|cmovnp|cmovl|cmovnl|cmovle|cmovnle r,r p06
form setbe|setnbe r8 2p06 lat=2
form seto|setno|setb|setnb|setz|setnz|sets|setns|setp|setnp|setl|setnl|setle|setnle r8 p06

# ========================================================================
# Branches, calls and returns
# ========================================================================
form jo|jno|jb|jnb|jz|jnz|jbe|jnbe|js|jns|jp|jnp|jl|jnl|jle|jnle rel p06   # not-taken on p0 or p6, taken on p6; p06 kept
form jcxz|jecxz|jrcxz rel 2p06
form loop rel 7p0156 lat=5                       # microcoded; rare
form loope|loopne rel 11p0156 lat=5
form jmp rel p6
form jmp r p6
form jmp m p23+p6                                # micro-fused: 1 fused µop
form call rel p237+p4+p6                         # push of the return address + branch: 2 fused
form call r p237+p4+p6
form call m p23+p237+p4+p6 fused=3
form ret - p23+p6 fused=2                        # return stack predicts the target; 2 fused µops (Agner)
form ret i p23+p6+p0156 fused=3
form leave - p23+2p0156                          # mov rsp,rbp + pop rbp: 3 µops
form enter i,i 12p0156+p237+p4 lat=8             # microcoded; rare

# ========================================================================
# NOPs, fences, atomics, prefetches, system
# ========================================================================
form nop - - lat=0 fused=1
form nop * - lat=0 fused=1                       # nop, nop r/m (multi-byte): no execution µop, one issue slot
form endbr64|endbr32 - - lat=0 fused=1           # CET landing pad: a NOP on SKX
form pause - 4p0156 lat=140                      # ~140 cycles on SKL/SKX (the stall of the following µops is not expressible here)
form lfence - 2p06 serial                        # waits for all older instructions; ~4 cycles
form mfence - p23+p4+p06 serial                  # microcoded (~33 cycles after the SKL012 microcode update); drains the store buffer
form sfence - p237+p4 serial                     # orders stores only; ~6 cycles
form prefetcht0|prefetcht1|prefetcht2|prefetchnta|prefetchw|prefetchwt1 m p23 lat=0   # a load µop without a destination
form clflush|clflushopt|clwb m p23+p4+2p0156
# Atomic read-modify-write: a locked instruction is a full memory barrier and
# takes ~18-20 cycles on SKX (uops.info, Agner: lock add 8 µops, lock xadd 9,
# lock cmpxchg 10, lock cmpxchg16b ~19). Modelled as serial with the ~18-cycle
# latency on the result register.
form lock.add|lock.sub|lock.and|lock.or|lock.xor|lock.adc|lock.sbb m,* p23+p237+p4+5p0156 lat=18 serial
form lock.inc|lock.dec|lock.neg|lock.not m,* p23+p237+p4+5p0156 lat=18 serial
form lock.xadd m,* p23+p237+p4+6p0156 lat=18 serial
form lock.cmpxchg m,* p23+p237+p4+7p0156 lat=18 serial
form lock.cmpxchg8b|lock.cmpxchg16b m p23+p237+p4+16p0156 lat=22 serial
form lock.bts|lock.btr|lock.btc m,* p23+p237+p4+8p0156 lat=18 serial
form xadd r,r 3p0156 lat=2                       # not locked
form xadd m,r p23+p237+p4+3p0156 lat=2
form cmpxchg r,r 5p0156 lat=2                    # not locked
form cmpxchg m,r p23+p237+p4+4p0156 lat=2
form cmpxchg8b|cmpxchg16b m p23+p237+p4+14p0156 lat=10
form rdtsc - 15p0156 lat=25                      # ~20 µops, ~25 cycles (not serializing)
form rdtscp - 20p0156 lat=32 serial              # waits for older instructions
form rdpmc - 30p0156 lat=35 serial
form rdrand|rdseed r 16p0156 lat=460             # ~16 µops, one every ~460 cycles on SKX (DRNG)
form cpuid - 30p0156 lat=100 serial
form xgetbv - 15p0156 lat=10
form syscall|sysenter - 40p0156 lat=100 serial   # only the entry; the kernel is not simulated
form ud2|int3|hlt - p0156 serial
form xtest - 2p0156                                 # TSX (lock elision in glibc); disabled by microcode on many SKX parts
form xbegin rel 20p0156 lat=20 serial
form xend|xabort * 20p0156 lat=20 serial

# ========================================================================
# String instructions
# ========================================================================
# rep movs/stos use the fast-string microcode (ERMSB): ~20-35 cycles of
# start-up, then 32 B per cycle. The model sees one instruction per call, so
# the forms model a typical short call of about 128 bytes: 4 line-sized
# loads/stores plus the microcode setup (~24 fused µops from the MSROM) and a
# ~20-cycle latency on rcx/rsi/rdi. Long copies are underestimated.
form rep.movsb|rep.movsw|rep.movsd|rep.movsq - 4p23+4p237+4p4+16p0156 lat=20 fused=24
form rep.stosb|rep.stosw|rep.stosd|rep.stosq - 4p237+4p4+16p0156 lat=20 fused=24
# repe/repne cmps/scas are not fast strings: ~2-3 cycles per element; a
# typical count of ~16 elements is modelled.
form repe.cmpsb|repe.cmpsw|repe.cmpsd|repe.cmpsq|repne.cmpsb|repne.cmpsw|repne.cmpsd|repne.cmpsq - 32p23+32p0156 lat=40 fused=48
form repe.scasb|repe.scasw|repe.scasd|repe.scasq|repne.scasb|repne.scasw|repne.scasd|repne.scasq - 16p23+32p0156 lat=40 fused=40
form rep.lodsb|rep.lodsw|rep.lodsd|rep.lodsq - 16p23+32p0156 lat=40 fused=40
# single string instructions (no prefix): pointer updates are extra µops
form movsb|movsw|movsd|movsq - p23+p237+p4+2p0156 fused=5
form stosb|stosw|stosd|stosq - p237+p4+p0156 fused=3
form lodsb|lodsw|lodsd|lodsq - p23+2p0156 fused=3
form scasb|scasw|scasd|scasq - p23+2p0156 fused=3
form cmpsb|cmpsw|cmpsd|cmpsq - 2p23+3p0156 fused=5

# ========================================================================
# Vector moves, loads and stores (SSE, AVX, AVX-512)
# ========================================================================
# Register-to-register moves are eliminated at rename (SKL/SKX eliminate
# xmm/ymm/zmm moves). A merge- or zero-masked EVEX move (vmovaps zmm{k}, zmm)
# has the same key and is a p05 blend on the hardware; vmovdqu8/16 are only
# used with a mask in practice, so they are modelled as the blend.
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa|vmovdqu|vmovdqa32|vmovdqa64|vmovdqu32|vmovdqu64 v,v - lat=0 fused=1 elim
form movaps|movapd|movups|movupd|movdqa|movdqu x,x - lat=0 fused=1 elim
form vmovdqu8|vmovdqu16 z,z p05
form vmovdqu8|vmovdqu16 v,v p015
# Full-width loads: pure load µops. A masked EVEX load has the same key; on
# the hardware it is load + blend (llvm-mca: 2 µops) and merge-masking adds
# a dependency on the destination, neither of which the key can show.
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa|vmovdqu|vmovdqa32|vmovdqa64|vmovdqu8|vmovdqu16|vmovdqu32|vmovdqu64|vmovntdqa|vlddqu v,m p23 lat=0
form movaps|movapd|movups|movupd|movdqa|movdqu|movntdqa|lddqu x,m p23 lat=0
form vmovaps|vmovapd|vmovups|vmovupd|vmovdqa|vmovdqu|vmovdqa32|vmovdqa64|vmovdqu8|vmovdqu16|vmovdqu32|vmovdqu64 m,v p237+p4
form movaps|movapd|movups|movupd|movdqa|movdqu m,x p237+p4
form vmovntps|vmovntpd|vmovntdq|movntps|movntpd|movntdq m,v p237+p4   # non-temporal stores (write-combining: the line is not read)
# Scalar and 64-bit loads and stores
form vmovss|vmovsd|movss|movsd|vmovd|vmovq|movd|movq x,m p23 lat=0
form vmovss|vmovsd|movss|movsd|vmovd|vmovq|movd|movq m,x p237+p4
form vmovss|vmovsd x,x,x p5                      # merge of the low element: shuffle unit
form movss|movsd x,x p5
form vmovq|movq x,x p015                         # copy the low 64 bits, zero the rest
form vmovd|vmovq|movd|movq x,r p5 lat=2          # GPR -> xmm
form vmovd|vmovq|movd|movq r,x p0 lat=2          # xmm -> GPR
form vmovlps|vmovhps|vmovlpd|vmovhpd x,x,m p5+p23   # load into half of a register: load + shuffle
form movlps|movhps|movlpd|movhpd x,m p5+p23
form vmovlps|vmovhps|vmovlpd|vmovhpd|movlps|movhps|movlpd|movhpd m,x p237+p4   # store of a half: no shuffle
form vmovhlps|vmovlhps x,x,x p5
form movhlps|movlhps x,x p5
form vmovddup|vmovsldup|vmovshdup|movddup|movsldup|movshdup v,m p23 lat=0   # the load unit duplicates
form vmovddup|vmovsldup|vmovshdup|movddup|movsldup|movshdup v,v p5
# Masked loads and stores (AVX vmaskmov: load + blend; store needs the mask on p0)
form vmaskmovps|vmaskmovpd|vpmaskmovd|vpmaskmovq v,v,m p015+p23
form vmaskmovps|vmaskmovpd|vpmaskmovd|vpmaskmovq m,v,v p0+p237+p4
form maskmovdqu|vmaskmovdqu x,x 10p0156+p237+p4 lat=6   # byte-masked NT store: microcoded, rare

# ------------------------------------------------------- broadcasts ---
# 32/64/128/256-bit broadcasts from memory are done by the load unit (one
# load µop); byte and word broadcasts need a shuffle µop as well.
form vbroadcastss|vbroadcastsd|vbroadcastf128|vbroadcasti128|vbroadcastf32x4|vbroadcastf64x4|vbroadcasti32x4|vbroadcasti64x4|vbroadcastf32x8|vbroadcasti32x8|vbroadcastf64x2|vbroadcasti64x2|vpbroadcastd|vpbroadcastq v,m p23 lat=0
form vbroadcastf32x2|vbroadcasti32x2 v,m p5+p23 lat=1
form vpbroadcastb|vpbroadcastw v,m p5+p23 lat=1
form vbroadcastss|vbroadcastsd|vpbroadcastb|vpbroadcastw|vpbroadcastd|vpbroadcastq|vbroadcasti32x2|vbroadcastf32x2 x,x p5
form vbroadcastss|vbroadcastsd|vpbroadcastb|vpbroadcastw|vpbroadcastd|vpbroadcastq|vbroadcasti32x2|vbroadcastf32x2 v,x p5 lat=3   # lane-crossing
form vpbroadcastb|vpbroadcastw|vpbroadcastd|vpbroadcastq v,r p5 lat=3   # EVEX broadcast from a GPR
form vpbroadcastmb2q|vpbroadcastmw2d v,k p5

# ========================================================================
# FP arithmetic (packed and scalar): add/sub/mul/FMA/min/max, 4 cycles,
# p01 at xmm/ymm (two FMA units), p05 at zmm.
# ========================================================================
form vaddps|vaddpd|vsubps|vsubpd|vmulps|vmulpd|vminps|vminpd|vmaxps|vmaxpd|vaddsubps|vaddsubpd|vscalefps|vscalefpd z,z,z p05 lat=4
form vaddps|vaddpd|vsubps|vsubpd|vmulps|vmulpd|vminps|vminpd|vmaxps|vmaxpd|vaddsubps|vaddsubpd|vscalefps|vscalefpd z,z,mb p05+p23 lat=4
form vaddps|vaddpd|vsubps|vsubpd|vmulps|vmulpd|vminps|vminpd|vmaxps|vmaxpd|vaddsubps|vaddsubpd|vscalefps|vscalefpd v,v,mb p01+p23 lat=4
form vaddps|vaddpd|vsubps|vsubpd|vmulps|vmulpd|vminps|vminpd|vmaxps|vmaxpd|vaddsubps|vaddsubpd|vscalefps|vscalefpd|vaddss|vaddsd|vsubss|vsubsd|vmulss|vmulsd|vminss|vminsd|vmaxss|vmaxsd|vscalefss|vscalefsd|vgetexpss|vgetexpsd v,v,v p01 lat=4
form addps|addpd|subps|subpd|mulps|mulpd|minps|minpd|maxps|maxpd|addsubps|addsubpd|addss|addsd|subss|subsd|mulss|mulsd|minss|minsd|maxss|maxsd x,x p01 lat=4
# Scalar forms with a 32/64-bit memory operand are written out so that they
# do not depend on how a narrow memory operand of a vector instruction is
# widened by the derivation rule.
form vaddss|vaddsd|vsubss|vsubsd|vmulss|vmulsd|vminss|vminsd|vmaxss|vmaxsd|vscalefss|vscalefsd|vgetexpss|vgetexpsd x,x,m p01+p23 lat=4
form addss|addsd|subss|subsd|mulss|mulsd|minss|minsd|maxss|maxsd x,m p01+p23 lat=4
# FMA3: all forms 4 cycles, p01 / p05 (132/213/231 differ only in operand order)
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd z,z,z p05 lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd z,z,z p05 lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd z,z,z p05 lat=4
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd z,z,mb p05+p23 lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd z,z,mb p05+p23 lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd z,z,mb p05+p23 lat=4
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd v,v,mb p01+p23 lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd v,v,mb p01+p23 lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd v,v,mb p01+p23 lat=4
form vfmadd132ps|vfmadd213ps|vfmadd231ps|vfmadd132pd|vfmadd213pd|vfmadd231pd|vfmsub132ps|vfmsub213ps|vfmsub231ps|vfmsub132pd|vfmsub213pd|vfmsub231pd v,v,v p01 lat=4
form vfnmadd132ps|vfnmadd213ps|vfnmadd231ps|vfnmadd132pd|vfnmadd213pd|vfnmadd231pd|vfnmsub132ps|vfnmsub213ps|vfnmsub231ps|vfnmsub132pd|vfnmsub213pd|vfnmsub231pd v,v,v p01 lat=4
form vfmaddsub132ps|vfmaddsub213ps|vfmaddsub231ps|vfmaddsub132pd|vfmaddsub213pd|vfmaddsub231pd|vfmsubadd132ps|vfmsubadd213ps|vfmsubadd231ps|vfmsubadd132pd|vfmsubadd213pd|vfmsubadd231pd v,v,v p01 lat=4
form vfmadd132ss|vfmadd213ss|vfmadd231ss|vfmadd132sd|vfmadd213sd|vfmadd231sd|vfmsub132ss|vfmsub213ss|vfmsub231ss|vfmsub132sd|vfmsub213sd|vfmsub231sd x,x,x p01 lat=4
form vfnmadd132ss|vfnmadd213ss|vfnmadd231ss|vfnmadd132sd|vfnmadd213sd|vfnmadd231sd|vfnmsub132ss|vfnmsub213ss|vfnmsub231ss|vfnmsub132sd|vfnmsub213sd|vfnmsub231sd x,x,x p01 lat=4
form vfnmadd132ss|vfnmadd213ss|vfnmadd231ss|vfnmadd132sd|vfnmadd213sd|vfnmadd231sd|vfnmsub132ss|vfnmsub213ss|vfnmsub231ss|vfnmsub132sd|vfnmsub213sd|vfnmsub231sd x,x,m p01+p23 lat=4
form vfmadd132ss|vfmadd213ss|vfmadd231ss|vfmadd132sd|vfmadd213sd|vfmadd231sd|vfmsub132ss|vfmsub213ss|vfmsub231ss|vfmsub132sd|vfmsub213sd|vfmsub231sd x,x,m p01+p23 lat=4
# AVX-512 FP helpers: getexp/getmant/fixupimm/range 4 cycles like an add;
# reduce and roundscale are 2 µops / 8 cycles like round.
form vgetexpps|vgetexppd z,z p05 lat=4
form vgetexpps|vgetexppd z,mb p05+p23 lat=4
form vgetexpps|vgetexppd v,mb p01+p23 lat=4
form vgetexpps|vgetexppd v,v p01 lat=4
form vgetmantps|vgetmantpd z,z,i p05 lat=4
form vgetmantps|vgetmantpd z,mb,i p05+p23 lat=4
form vgetmantps|vgetmantpd v,mb,i p01+p23 lat=4
form vgetmantps|vgetmantpd v,v,i p01 lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd z,z,z,i p05 lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd z,z,mb,i p05+p23 lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd v,v,mb,i p01+p23 lat=4
form vfixupimmps|vfixupimmpd|vrangeps|vrangepd|vfixupimmss|vfixupimmsd|vrangess|vrangesd|vgetmantss|vgetmantsd v,v,v,i p01 lat=4
# FP compares into a vector register (VEX/legacy): p01, 4 cycles
form vcmpps|vcmppd|vcmpss|vcmpsd v,v,v,i p01 lat=4
form cmpps|cmppd|cmpss|cmpsd x,x,i p01 lat=4
# FP compares into a mask register (EVEX) and classification: p5, 3 cycles
form vcmpps|vcmppd|vcmpss|vcmpsd k,v,v,i p5 lat=3
form vcmpps|vcmppd k,v,mb,i p5+p23 lat=3
form vfpclassps|vfpclasspd|vfpclassss|vfpclasssd k,v,i p5 lat=3
form vfpclassps|vfpclasspd k,mb,i p5+p23 lat=3
form vcomiss|vcomisd|vucomiss|vucomisd|comiss|comisd|ucomiss|ucomisd x,x p0 lat=3   # to EFLAGS
form vcomiss|vcomisd|vucomiss|vucomisd|comiss|comisd|ucomiss|ucomisd x,m p0+p23 lat=3

# ------------------------------------------- FP division and square root ---
# One divider on port 0 (resource DIV). SKX numbers (Agner, uops.info; llvm-mca
# within 1-2 cycles): divss 11 / 3, divsd 13-14 / 4, divps x 11/3 y 11/5 z 18/10,
# divpd x 13-14/4 y 13-14/8 z 22-23/16; sqrtss 12/3, sqrtsd 15-16/4-6,
# sqrtps x 12/3 y 12/6 z 19/12, sqrtpd x 15-16/4-6 y 15-16/9-12 z 23-31/16-24.
# zmm forms are 3 µops (2 on p0, 1 on p5).
form vdivps z,z,z 2p0+p5 lat=18 div=10
form vdivps z,z,mb 2p0+p5+p23 lat=18 div=10
form vdivpd z,z,z 2p0+p5 lat=23 div=16
form vdivpd z,z,mb 2p0+p5+p23 lat=23 div=16
form vsqrtps z,z 2p0+p5 lat=19 div=12
form vsqrtps z,mb 2p0+p5+p23 lat=19 div=12
form vsqrtpd z,z 2p0+p5 lat=31 div=24
form vsqrtpd z,mb 2p0+p5+p23 lat=31 div=24
form vdivps y,y,y p0 lat=11 div=5
form vdivps y,y,mb p0+p23 lat=11 div=5
form vdivpd y,y,y p0 lat=14 div=8
form vdivpd y,y,mb p0+p23 lat=14 div=8
form vsqrtps y,y p0 lat=12 div=6
form vsqrtps y,mb p0+p23 lat=12 div=6
form vsqrtpd y,y p0 lat=16 div=12
form vsqrtpd y,mb p0+p23 lat=16 div=12
form vdivss x,x,m p0+p23 lat=11 div=3
form divss x,m p0+p23 lat=11 div=3
form vdivsd x,x,m p0+p23 lat=14 div=4
form divsd x,m p0+p23 lat=14 div=4
form vsqrtss x,x,m p0+p23 lat=12 div=3
form sqrtss x,m p0+p23 lat=12 div=3
form vsqrtsd x,x,m p0+p23 lat=16 div=6
form sqrtsd x,m p0+p23 lat=16 div=6
form vdivps|vdivss x,x,x p0 lat=11 div=3
form vdivps x,x,mb p0+p23 lat=11 div=3
form divps|divss x,x p0 lat=11 div=3
form vdivpd|vdivsd x,x,x p0 lat=14 div=4
form vdivpd x,x,mb p0+p23 lat=14 div=4
form divpd|divsd x,x p0 lat=14 div=4
form vsqrtps|sqrtps|sqrtss x,x p0 lat=12 div=3
form vsqrtps x,mb p0+p23 lat=12 div=3
form vsqrtss x,x,x p0 lat=12 div=3
form vsqrtpd|sqrtpd|sqrtsd x,x p0 lat=16 div=6
form vsqrtpd x,mb p0+p23 lat=16 div=6
form vsqrtsd x,x,x p0 lat=16 div=6
# Approximations: rcp/rsqrt 4 cycles on p0; the 14-bit AVX-512 forms at zmm
# are 3 µops.
form vrcpps|vrsqrtps|rcpps|rsqrtps|rcpss|rsqrtss v,v p0 lat=4
form vrcpss|vrsqrtss x,x,x p0 lat=4
form vrcp14ps|vrcp14pd z,z 2p0+p5 lat=6
form vrsqrt14ps|vrsqrt14pd z,z 2p0+p5 lat=9
form vrcp14ps|vrcp14pd z,mb 2p0+p5+p23 lat=6
form vrsqrt14ps|vrsqrt14pd z,mb 2p0+p5+p23 lat=9
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd v,mb p0+p23 lat=4
form vrcp14ps|vrcp14pd|vrsqrt14ps|vrsqrt14pd v,v p0 lat=4
form vrcp14ss|vrcp14sd|vrsqrt14ss|vrsqrt14sd x,x,x p0 lat=4

# ------------------------------------------------------------ rounding ---
form vroundps|vroundpd|vroundss|vroundsd|vrndscaless|vrndscalesd|vreducess|vreducesd x,x,x,i 2p01 lat=8
form vroundss|vroundsd|vrndscaless|vrndscalesd|vreducess|vreducesd x,x,m,i 2p01+p23 lat=8
form roundss|roundsd x,m,i 2p01+p23 lat=8
form vrndscaleps|vrndscalepd|vreduceps|vreducepd z,z,i 2p05 lat=8
form vrndscaleps|vrndscalepd|vreduceps|vreducepd z,mb,i 2p05+p23 lat=8
form vrndscaleps|vrndscalepd|vreduceps|vreducepd v,mb,i 2p01+p23 lat=8
form vroundps|vroundpd|vrndscaleps|vrndscalepd|vreduceps|vreducepd v,v,i 2p01 lat=8
form roundps|roundpd|roundss|roundsd x,x,i 2p01 lat=8

# ---------------------------------------------------------- FP logic ---
# and/andn/or/xor/blend on the vector ALUs p015 (p05 at zmm), 1 cycle.
# xorps/xorpd of a register with itself is a zero idiom (no µop).
form vxorps|vxorpd z,z,z p05 zero-idiom
form vxorps|vxorpd v,v,v p015 zero-idiom
form xorps|xorpd x,x p015 zero-idiom
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vblendmps|vblendmpd z,z,z p05
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vxorps|vxorpd|vblendmps|vblendmpd z,z,mb p05+p23
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vxorps|vxorpd|vblendmps|vblendmpd v,v,mb p015+p23
form vandps|vandpd|vandnps|vandnpd|vorps|vorpd|vblendmps|vblendmpd v,v,v p015
form andps|andpd|andnps|andnpd|orps|orpd x,x p015
form vblendps|vblendpd v,v,v,i p015
form blendps|blendpd x,x,i p015
form vblendvps|vblendvpd|vpblendvb v,v,v,v 2p015 lat=2   # AVX 4-operand blendv: 2 µops
form blendvps|blendvpd|pblendvb x,x 2p015 lat=2          # SSE4.1: xmm0 is the implicit mask

# ------------------------------------------------ horizontal FP and dot ---
form vhaddps|vhaddpd|vhsubps|vhsubpd v,v,v 2p5+p01 lat=6
form haddps|haddpd|hsubps|hsubpd x,x 2p5+p01 lat=6
form vdpps v,v,v,i 3p01+p5 lat=13
form dpps x,x,i 3p01+p5 lat=13
form vdppd x,x,x,i 2p01+p5 lat=9
form dppd x,x,i 2p01+p5 lat=9

# ========================================================================
# Conversions
# ========================================================================
# Same-width int<->float conversions: one FP µop, 4 cycles.
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq z,z p05 lat=4
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq z,mb p05+p23 lat=4
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq v,mb p01+p23 lat=4
form vcvtdq2ps|vcvtps2dq|vcvttps2dq|vcvtudq2ps|vcvtps2udq|vcvttps2udq|vcvtqq2pd|vcvtuqq2pd|vcvtpd2qq|vcvttpd2qq|vcvtpd2uqq|vcvttpd2uqq v,v p01 lat=4
form cvtdq2ps|cvtps2dq|cvttps2dq x,x p01 lat=4
# Width-changing conversions: FP µop + shuffle µop, 5 cycles within xmm,
# 7 cycles when crossing 128-bit lanes (ymm<->xmm, zmm<->ymm).
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps|vcvtph2ps|vcvtps2ph z,v p05+p5 lat=7
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps|vcvtph2ps|vcvtps2ph v,z p05+p5 lat=7
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq z,mb p05+p5+p23 lat=7
form vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtqq2ps|vcvtuqq2ps y,mb p05+p5+p23 lat=7
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps v,mb p01+p5+p23 lat=5
# Widening conversions from memory: the load delivers the half-width source,
# no shuffle µop (llvm-mca: 2 µops, load latency + 4).
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtph2ps z,m p05+p23 lat=4
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtph2ps|cvtps2pd|cvtdq2pd v,m p01+p23 lat=4
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps|vcvtph2ps x,x p01+p5 lat=5
form vcvtps2pd|vcvtdq2pd|vcvtudq2pd|vcvtpd2ps|vcvtpd2dq|vcvttpd2dq|vcvtpd2udq|vcvttpd2udq|vcvtps2qq|vcvttps2qq|vcvtps2uqq|vcvttps2uqq|vcvtqq2ps|vcvtuqq2ps|vcvtph2ps v,v p01+p5 lat=7
form vcvtps2ph x,x,i p01+p5 lat=5
form vcvtps2ph x,y,i p01+p5 lat=7
form vcvtps2ph y,z,i p05+p5 lat=7
form vcvtps2ph m,v,i p01+p5+p237+p4               # convert and store
form cvtps2pd|cvtdq2pd|cvtpd2ps|cvtpd2dq|cvttpd2dq x,x p01+p5 lat=5
# Scalar float<->double: 2 µops, 5 cycles; from memory the shuffle is not needed.
form vcvtss2sd|vcvtsd2ss x,x,m p01+p23 lat=4
form vcvtss2sd|vcvtsd2ss x,x,x p01+p5 lat=5
form cvtss2sd|cvtsd2ss x,m p01+p23 lat=4
form cvtss2sd|cvtsd2ss x,x p01+p5 lat=5
# int -> float scalar (GPR source); memory source: load + convert (no shuffle)
form vcvtsi2ss|vcvtusi2ss x,x,r64 p01+2p5 lat=6
form vcvtsi2ss|vcvtsi2sd|vcvtusi2ss|vcvtusi2sd x,x,r p01+p5 lat=5
form vcvtsi2ss|vcvtsi2sd|vcvtusi2ss|vcvtusi2sd x,x,m p01+p23 lat=4
form cvtsi2ss x,r64 p01+2p5 lat=6
form cvtsi2ss|cvtsi2sd x,r p01+p5 lat=5
form cvtsi2ss|cvtsi2sd x,m p01+p23 lat=4
# float -> int scalar (GPR destination): 2 µops, 6 cycles
form vcvtss2si|vcvttss2si|vcvtss2usi|vcvttss2usi|cvtss2si|cvttss2si r64,x p0+p01+p5 lat=7
form vcvtsd2si|vcvttsd2si|vcvtss2si|vcvttss2si|vcvtsd2usi|vcvttsd2usi|vcvtss2usi|vcvttss2usi|cvtsd2si|cvttsd2si|cvtss2si|cvttss2si r,x p0+p01 lat=6
form vcvtsd2si|vcvttsd2si|vcvtss2si|vcvttss2si|vcvtsd2usi|vcvttsd2usi|vcvtss2usi|vcvttss2usi|cvtsd2si|cvttsd2si|cvtss2si|cvttss2si r,m p0+p01+p23 lat=6

# ========================================================================
# Integer SIMD
# ========================================================================
# Zero idioms: pxor/vpxor[dq], psub* and pcmpgt{b,w,d} of a register with
# itself are recognized at rename and execute no µop. pcmpeq of a register
# with itself (all-ones idiom) breaks the dependency but still executes on
# p01; the format cannot express "dependency-breaking but executed", so it
# is modelled as an ordinary p01 µop (a false dependency on the source).
form vpxor|vpxord|vpxorq|vpsubb|vpsubw|vpsubd|vpsubq z,z,z p05 zero-idiom
form vpxor|vpxord|vpxorq|vpsubb|vpsubw|vpsubd|vpsubq v,v,v p015 zero-idiom
form pxor|psubb|psubw|psubd|psubq x,x p015 zero-idiom
form vpcmpgtb|vpcmpgtw|vpcmpgtd v,v,v p01 zero-idiom   # VEX form: into a vector register (the EVEX form writes k, below)
form pcmpgtb|pcmpgtw|pcmpgtd x,x p01 zero-idiom
# Simple integer ALU: add/sub/logic/ternlog/blend, p015 (p05 at zmm), 1 cycle
form vpaddb|vpaddw|vpaddd|vpaddq|vpand|vpandd|vpandq|vpandn|vpandnd|vpandnq|vpor|vpord|vporq|vpblendmb|vpblendmw|vpblendmd|vpblendmq z,z,z p05
form vpaddd|vpaddq|vpsubd|vpsubq|vpandd|vpandq|vpandnd|vpandnq|vpord|vporq|vpxord|vpxorq|vpblendmd|vpblendmq z,z,mb p05+p23
form vpaddd|vpaddq|vpsubd|vpsubq|vpandd|vpandq|vpandnd|vpandnq|vpord|vporq|vpxord|vpxorq|vpblendmd|vpblendmq v,v,mb p015+p23
form vpaddb|vpaddw|vpaddd|vpaddq|vpand|vpandd|vpandq|vpandn|vpandnd|vpandnq|vpor|vpord|vporq|vpblendmb|vpblendmw|vpblendmd|vpblendmq v,v,v p015
form paddb|paddw|paddd|paddq|pand|pandn|por x,x p015
form vpternlogd|vpternlogq z,z,z,i p05
form vpternlogd|vpternlogq z,z,mb,i p05+p23
form vpternlogd|vpternlogq v,v,mb,i p015+p23
form vpternlogd|vpternlogq v,v,v,i p015
form vpblendd v,v,v,i p015
form vpblendw v,v,v,i p5                          # word blend is a shuffle-unit op on SKL
form pblendw x,x,i p5
form vpmovm2b|vpmovm2w|vpmovm2d|vpmovm2q z,k p05   # mask -> vector
form vpmovm2b|vpmovm2w|vpmovm2d|vpmovm2q v,k p015
form vpmovb2m|vpmovw2m|vpmovd2m|vpmovq2m k,v p0    # vector -> mask
# "p01-class" integer ops: min/max/abs/avg/saturating add-sub/sign/compare
# into a vector, 1 cycle on p01 at xmm/ymm and on p0 only at zmm.
form vpminsb|vpminsw|vpminsd|vpminsq|vpminub|vpminuw|vpminud|vpminuq|vpmaxsb|vpmaxsw|vpmaxsd|vpmaxsq|vpmaxub|vpmaxuw|vpmaxud|vpmaxuq z,z,z p0
form vpavgb|vpavgw|vpaddsb|vpaddsw|vpaddusb|vpaddusw|vpsubsb|vpsubsw|vpsubusb|vpsubusw z,z,z p0
form vpminsd|vpminsq|vpminud|vpminuq|vpmaxsd|vpmaxsq|vpmaxud|vpmaxuq z,z,mb p0+p23
form vpminsd|vpminsq|vpminud|vpminuq|vpmaxsd|vpmaxsq|vpmaxud|vpmaxuq v,v,mb p01+p23
form vpminsb|vpminsw|vpminsd|vpminsq|vpminub|vpminuw|vpminud|vpminuq|vpmaxsb|vpmaxsw|vpmaxsd|vpmaxsq|vpmaxub|vpmaxuw|vpmaxud|vpmaxuq v,v,v p01
form vpavgb|vpavgw|vpaddsb|vpaddsw|vpaddusb|vpaddusw|vpsubsb|vpsubsw|vpsubusb|vpsubusw|vpsignb|vpsignw|vpsignd|vpcmpeqb|vpcmpeqw|vpcmpeqd|vpcmpeqq v,v,v p01
form pminsb|pminsw|pminsd|pminub|pminuw|pminud|pmaxsb|pmaxsw|pmaxsd|pmaxub|pmaxuw|pmaxud|pavgb|pavgw|paddsb|paddsw|paddusb|paddusw|psubsb|psubsw|psubusb|psubusw|psignb|psignw|psignd|pcmpeqb|pcmpeqw|pcmpeqd|pcmpeqq x,x p01
form vpabsb|vpabsw|vpabsd|vpabsq z,z p0
form vpabsd|vpabsq z,mb p0+p23
form vpabsd|vpabsq v,mb p01+p23
form vpabsb|vpabsw|vpabsd|vpabsq v,v p01
form pabsb|pabsw|pabsd x,x p01
form vpcmpgtq v,v,v p5 lat=3                      # 64-bit compare: p5, 3 cycles
form pcmpgtq x,x p5 lat=3
# Compares and tests into a mask register (EVEX): p5, 3 cycles
form vpcmpeqb|vpcmpeqw|vpcmpeqd|vpcmpeqq|vpcmpgtb|vpcmpgtw|vpcmpgtd|vpcmpgtq|vptestmb|vptestmw|vptestmd|vptestmq|vptestnmb|vptestnmw|vptestnmd|vptestnmq k,v,v p5 lat=3
form vpcmpeqd|vpcmpeqq|vpcmpgtd|vpcmpgtq|vptestmd|vptestmq|vptestnmd|vptestnmq k,v,mb p5+p23 lat=3
form vpcmpb|vpcmpw|vpcmpd|vpcmpq|vpcmpub|vpcmpuw|vpcmpud|vpcmpuq k,v,v,i p5 lat=3
form vpcmpd|vpcmpq|vpcmpud|vpcmpuq k,v,mb,i p5+p23 lat=3
form vptest|vtestps|vtestpd|ptest v,v p0+p5 lat=3  # to EFLAGS

# -------------------------------------------------------------- shifts ---
# By immediate and by a per-element count: p01 (p0 at zmm), 1 cycle.
# By a count in an xmm register: 2 µops (the count is broadcast on p5).
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq z,z,x p0+p5 lat=4
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq y,y,x p01+p5 lat=4
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq x,x,x p01+p5 lat=2
form psllw|pslld|psllq|psrlw|psrld|psrlq|psraw|psrad x,x p01+p5 lat=2
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq z,z,i p0
form vpslld|vpsllq|vpsrld|vpsrlq|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq z,mb,i p0+p23
form vpslld|vpsllq|vpsrld|vpsrlq|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq v,mb,i p01+p23
form vpsllw|vpslld|vpsllq|vpsrlw|vpsrld|vpsrlq|vpsraw|vpsrad|vpsraq|vprold|vprolq|vprord|vprorq v,v,i p01
form psllw|pslld|psllq|psrlw|psrld|psrlq|psraw|psrad x,i p01
form vpsllvw|vpsllvd|vpsllvq|vpsrlvw|vpsrlvd|vpsrlvq|vpsravw|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq z,z,z p0
form vpsllvd|vpsllvq|vpsrlvd|vpsrlvq|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq z,z,mb p0+p23
form vpsllvd|vpsllvq|vpsrlvd|vpsrlvq|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq v,v,mb p01+p23
form vpsllvw|vpsllvd|vpsllvq|vpsrlvw|vpsrlvd|vpsrlvq|vpsravw|vpsravd|vpsravq|vprolvd|vprolvq|vprorvd|vprorvq v,v,v p01
form vpslldq|vpsrldq v,v,i p5                     # byte shifts are shuffles
form pslldq|psrldq x,i p5

# ------------------------------------------------------------ multiply ---
form vpmullw|vpmulhw|vpmulhuw|vpmulhrsw|vpmuludq|vpmuldq|vpmaddwd|vpmaddubsw z,z,z p05 lat=5
form vpmuludq|vpmuldq z,z,mb p05+p23 lat=5
form vpmuludq|vpmuldq v,v,mb p01+p23 lat=5
form vpmullw|vpmulhw|vpmulhuw|vpmulhrsw|vpmuludq|vpmuldq|vpmaddwd|vpmaddubsw v,v,v p01 lat=5
form pmullw|pmulhw|pmulhuw|pmulhrsw|pmuludq|pmuldq|pmaddwd|pmaddubsw x,x p01 lat=5
# AVX512_VNNI dot products (Cascade Lake only): same units as vpmaddwd
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds z,z,z p05 lat=5
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds z,z,mb p05+p23 lat=5
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds v,v,mb p01+p23 lat=5
form vpdpbusd|vpdpbusds|vpdpwssd|vpdpwssds v,v,v p01 lat=5
form vpmulld z,z,z 2p05 lat=10                    # 2 µops, 10 cycles
form vpmulld z,z,mb 2p05+p23 lat=10
form vpmulld v,v,mb 2p01+p23 lat=10
form vpmulld v,v,v 2p01 lat=10
form pmulld x,x 2p01 lat=10
form vpmullq z,z,z 3p05 lat=15                    # AVX512DQ: 3 µops, 15 cycles
form vpmullq z,z,mb 3p05+p23 lat=15
form vpmullq v,v,mb 3p01+p23 lat=15
form vpmullq v,v,v 3p01 lat=15
form vpclmulqdq x,x,x,i p5 lat=6
form pclmulqdq x,x,i p5 lat=6
form vpsadbw v,v,v p5 lat=3
form vdbpsadbw v,v,v,i p5 lat=3
form psadbw x,x p5 lat=3
form vmpsadbw v,v,v,i 2p5 lat=4
form mpsadbw x,x,i 2p5 lat=4
form vphminposuw|phminposuw x,x p0 lat=4
form vphaddw|vphaddd|vphaddsw|vphsubw|vphsubd|vphsubsw v,v,v 2p5+p015 lat=3
form phaddw|phaddd|phaddsw|phsubw|phsubd|phsubsw x,x 2p5+p015 lat=3
form vplzcntd|vplzcntq z,z p05 lat=4              # AVX512CD
form vplzcntd|vplzcntq z,mb p05+p23 lat=4
form vplzcntd|vplzcntq v,mb p01+p23 lat=4
form vplzcntd|vplzcntq v,v p01 lat=4
form vpconflictd z,z 17p5+20p05 lat=26            # microcoded: ~37 µops
form vpconflictq z,z 9p5+13p05 lat=17
form vpconflictd|vpconflictq v,v 9p5+12p015 lat=17

# ------------------------------------------------------------ shuffles ---
# In-lane shuffles: 1 µop on p5, 1 cycle, any width.
form vpshufb|vpermilps|vpermilpd|vunpcklps|vunpckhps|vunpcklpd|vunpckhpd|vpunpcklbw|vpunpckhbw|vpunpcklwd|vpunpckhwd|vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq|vpacksswb|vpackssdw|vpackuswb|vpackusdw v,v,v p5
form vpermilps|vpermilpd|vunpcklps|vunpckhps|vunpcklpd|vunpckhpd|vpunpckldq|vpunpckhdq|vpunpcklqdq|vpunpckhqdq|vpackssdw|vpackusdw v,v,mb p5+p23
form vinsertps x,x,m,i p5+p23
form insertps x,m,i p5+p23
form vshufps|vshufpd|vpalignr|vinsertps v,v,v,i p5
form vshufps|vshufpd v,v,mb,i p5+p23
form vpshufd|vpshuflw|vpshufhw|vpermilps|vpermilpd v,v,i p5
form vpshufd|vpermilps|vpermilpd v,mb,i p5+p23
form pshufb|unpcklps|unpckhps|unpcklpd|unpckhpd|punpcklbw|punpckhbw|punpcklwd|punpckhwd|punpckldq|punpckhdq|punpcklqdq|punpckhqdq|packsswb|packssdw|packuswb|packusdw x,x p5
form shufps|shufpd|palignr|insertps|pshufd|pshuflw|pshufhw x,x,i p5
# Lane-crossing shuffles: 1 µop on p5, 3 cycles.
form vpermps|vpermpd|vpermd|vpermq|vpermt2d|vpermt2q|vpermt2ps|vpermt2pd|vpermi2d|vpermi2q|vpermi2ps|vpermi2pd v,v,v p5 lat=3
form vpermps|vpermpd|vpermd|vpermq|vpermt2d|vpermt2q|vpermt2ps|vpermt2pd|vpermi2d|vpermi2q|vpermi2ps|vpermi2pd v,v,mb p5+p23 lat=3
form vpermq|vpermpd v,v,i p5 lat=3
form vpermq|vpermpd v,mb,i p5+p23 lat=3
form vperm2f128|vperm2i128|vshuff32x4|vshuff64x2|vshufi32x4|vshufi64x2|valignd|valignq v,v,v,i p5 lat=3
form vshuff32x4|vshuff64x2|vshufi32x4|vshufi64x2|valignd|valignq v,v,mb,i p5+p23 lat=3
form vpermw|vpermt2w|vpermi2w v,v,v 2p5+p015 lat=7   # word permutes (AVX512BW): 3 µops
form vpermb|vpermt2b|vpermi2b v,v,v p5 lat=3          # VBMI (not on SKX; Ice Lake and later)
# Inserts and extracts of 128/256-bit lanes. From memory an insert is a
# load + blend (p015), without the shuffle unit; to memory an extract is a
# plain store.
form vinsertf128|vinserti128|vinsertf32x4|vinsertf64x2|vinserti32x4|vinserti64x2|vinsertf32x8|vinsertf64x4|vinserti32x8|vinserti64x4 v,v,m,i p015+p23
form vinsertf128|vinserti128|vinsertf32x4|vinsertf64x2|vinserti32x4|vinserti64x2|vinsertf32x8|vinsertf64x4|vinserti32x8|vinserti64x4 v,v,v,i p5 lat=3
form vextractf128|vextracti128|vextractf32x4|vextractf64x2|vextracti32x4|vextracti64x2|vextractf32x8|vextractf64x4|vextracti32x8|vextracti64x4 m,v,i p237+p4
form vextractf128|vextracti128|vextractf32x4|vextractf64x2|vextracti32x4|vextracti64x2|vextractf32x8|vextractf64x4|vextracti32x8|vextracti64x4 v,v,i p5 lat=3
# Zero/sign extension: in-lane at xmm (1 cycle), lane-crossing at ymm/zmm
# (3 cycles); from memory: load + shuffle.
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq x,m p5+p23
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq v,m p5+p23 lat=3
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq x,x p5
form vpmovzxbw|vpmovzxbd|vpmovzxbq|vpmovzxwd|vpmovzxwq|vpmovzxdq|vpmovsxbw|vpmovsxbd|vpmovsxbq|vpmovsxwd|vpmovsxwq|vpmovsxdq v,v p5 lat=3
form pmovzxbw|pmovzxbd|pmovzxbq|pmovzxwd|pmovzxwq|pmovzxdq|pmovsxbw|pmovsxbd|pmovsxbq|pmovsxwd|pmovsxwq|pmovsxdq x,m p5+p23
form pmovzxbw|pmovzxbd|pmovzxbq|pmovzxwd|pmovzxwq|pmovzxdq|pmovsxbw|pmovsxbd|pmovsxbq|pmovsxwd|pmovsxwq|pmovsxdq x,x p5
# Down-conversions (AVX-512 truncate/saturate): 2 µops on p5, 4 cycles (qword to dword: 1 µop, 3 cycles);
# to memory: + store.
form vpmovqd|vpmovsqd|vpmovusqd v,v p5 lat=3
form vpmovqd|vpmovsqd|vpmovusqd m,v p5+p237+p4
form vpmovwb|vpmovdb|vpmovdw|vpmovqb|vpmovqw|vpmovswb|vpmovsdb|vpmovsdw|vpmovsqb|vpmovsqw|vpmovuswb|vpmovusdb|vpmovusdw|vpmovusqb|vpmovusqw v,v 2p5 lat=4
form vpmovwb|vpmovdb|vpmovdw|vpmovqb|vpmovqw|vpmovswb|vpmovsdb|vpmovsdw|vpmovsqb|vpmovsqw|vpmovuswb|vpmovusdb|vpmovusdw|vpmovusqb|vpmovusqw m,v 2p5+p237+p4
# Compress and expand (AVX-512): 2 µops on p5
form vcompressps|vcompresspd|vpcompressd|vpcompressq v,v 2p5 lat=6
form vcompressps|vcompresspd|vpcompressd|vpcompressq m,v 2p5+p237+p4
form vexpandps|vexpandpd|vpexpandd|vpexpandq v,v 2p5 lat=3
form vexpandps|vexpandpd|vpexpandd|vpexpandq v,m 2p5+p23 lat=3

# ------------------------------------------- GPR <-> vector element moves ---
form vpinsrb|vpinsrw|vpinsrd|vpinsrq x,x,r,i 2p5 lat=3
form vpinsrb|vpinsrw|vpinsrd|vpinsrq x,x,m,i p5+p23   # load + shuffle
form pinsrb|pinsrw|pinsrd|pinsrq x,r,i 2p5 lat=3
form pinsrb|pinsrw|pinsrd|pinsrq x,m,i p5+p23
form vpextrb|vpextrw|vpextrd|vpextrq|vextractps|pextrb|pextrw|pextrd|pextrq|extractps r,x,i p0+p5 lat=3
form vpextrb|vpextrw|vpextrd|vpextrq|vextractps|pextrb|pextrw|pextrd|pextrq|extractps m,x,i p5+p237+p4
form vpmovmskb|vmovmskps|vmovmskpd|pmovmskb|movmskps|movmskpd r,v p0 lat=2

# ------------------------------------------------ crypto and strings ---
form vaesenc|vaesenclast|vaesdec|vaesdeclast x,x,x p0 lat=4
form aesenc|aesenclast|aesdec|aesdeclast x,x p0 lat=4
form vaesimc|aesimc x,x 2p0 lat=8
form vaeskeygenassist|aeskeygenassist x,x,i 12p0156 lat=12
form vpcmpistri|pcmpistri|vpcmpistrm|pcmpistrm x,x,i 3p0 lat=10
form vpcmpestri|pcmpestri|vpcmpestrm|pcmpestrm x,x,i 8p0156 lat=11

# ========================================================================
# Gathers and scatters
# ========================================================================
# A gather issues one load per element on p23 plus ~3 µops for the index
# extraction and the merge (p0, p5, and p015/p05 for the mask); 4-5 fused
# µops. Load-to-result ~20 cycles (xmm) to ~25 (zmm); the model adds the
# load latency (6/7/8), the rest is lat. The element count follows from the
# key: dps/dd gather as many elements as the destination holds, the q-index
# forms half of the index width (vgatherqps x may gather 2 or 4: 4 kept).
# AVX2 form: dest, vsib, mask vector
form vgatherdps|vpgatherdd y,m,y 8p23+p0+p5+p015 lat=15 fused=4
form vgatherdps|vpgatherdd x,m,x 4p23+p0+p5+p015 lat=14 fused=4
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq y,m,y 4p23+p0+p5+p015 lat=14 fused=4
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq x,m,x 2p23+p0+p5+p015 lat=13 fused=4
form vgatherqps|vpgatherqd x,m,x 4p23+p0+p5+p015 lat=14 fused=4
# AVX-512 form: the write mask {k} is not an operand
form vgatherdps|vpgatherdd z,m 16p23+p0+p5+p05 lat=17 fused=5
form vgatherdps|vpgatherdd y,m 8p23+p0+p5+p015 lat=15 fused=5
form vgatherdps|vpgatherdd x,m 4p23+p0+p5+p015 lat=14 fused=5
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq z,m 8p23+p0+p5+p05 lat=16 fused=5
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq y,m 4p23+p0+p5+p015 lat=14 fused=5
form vgatherdpd|vpgatherdq|vgatherqpd|vpgatherqq x,m 2p23+p0+p5+p015 lat=13 fused=5
form vgatherqps|vpgatherqd y,m 8p23+p0+p5+p015 lat=15 fused=5
form vgatherqps|vpgatherqd x,m 4p23+p0+p5+p015 lat=14 fused=5
# Scatters: one store-address and one store-data µop per element plus
# ~4 µops (uops.info/llvm-mca: vscatterdps zmm 36 µops, one per ~16 cycles)
form vscatterdps|vpscatterdd m,z 16p237+16p4+p0+p5+2p05 fused=20
form vscatterdps|vpscatterdd|vscatterqps|vpscatterqd m,y 8p237+8p4+p0+p5+2p015 fused=12
form vscatterdps|vpscatterdd|vscatterqps|vpscatterqd m,x 4p237+4p4+p0+p5+2p015 fused=8
form vscatterdpd|vpscatterdq|vscatterqpd|vpscatterqq m,z 8p237+8p4+p0+p5+2p05 fused=12
form vscatterdpd|vpscatterdq|vscatterqpd|vpscatterqq m,y 4p237+4p4+p0+p5+2p015 fused=8
form vscatterdpd|vpscatterdq|vscatterqpd|vpscatterqq m,x 2p237+2p4+p0+p5+2p015 fused=6

# ========================================================================
# Mask registers (AVX-512)
# ========================================================================
form kmovb|kmovw|kmovd|kmovq k,r p5               # GPR -> k
form kmovb|kmovw|kmovd|kmovq r,k p0 lat=3         # k -> GPR
form kmovb|kmovw|kmovd|kmovq k,k p0
form kmovb|kmovw|kmovd|kmovq k,m p23 lat=0
form kmovb|kmovw|kmovd|kmovq m,k p237+p4
form kandb|kandw|kandd|kandq|kandnb|kandnw|kandnd|kandnq|korb|korw|kord|korq|kxorb|kxorw|kxord|kxorq|kxnorb|kxnorw|kxnord|kxnorq k,k,k p0
form knotb|knotw|knotd|knotq k,k p0
form kortestb|kortestw|kortestd|kortestq|ktestb|ktestw|ktestd|ktestq k,k p0 lat=3   # to EFLAGS
form kshiftlb|kshiftlw|kshiftld|kshiftlq|kshiftrb|kshiftrw|kshiftrd|kshiftrq k,k,i p5 lat=3
form kunpckbw|kunpckwd|kunpckdq k,k,k p5 lat=3
form kaddb|kaddw|kaddd|kaddq k,k,k p5 lat=4

# ========================================================================
# x87 (long double in libm/libstdc++). Only the forms whose operands are
# memory or implicit can be written: the key has no kind for st(i)
# registers, so fadd st, st(i) and friends fall to the x87 category line.
# ========================================================================
form fld|fild m32 p23 lat=3                       # + the load latency
form fld m64 p23 lat=3
form fld m80 2p01+2p23 lat=4 fused=4
form fild m p01+p23 lat=6
form fst|fstp m32 p01+p237+p4 lat=4
form fst|fstp m64 p01+p237+p4 lat=4
form fstp m80 3p0156+2p237+2p4 lat=5 fused=7
form fist|fistp|fisttp m p1+p237+p4 lat=7
form fadd|fsub|fsubr|fcom|fcomp m p5+p23 lat=3
form fmul m p0+p23 lat=5
form fdiv|fdivr m p0+p23 lat=15 div=4
form fiadd|fisub|fisubr|ficom|ficomp m 2p01+p23 lat=6
form fimul m 2p01+p23 lat=8
form fidiv|fidivr m 2p01+p23 lat=18 div=4
form fldz|fld1|fldpi|fldl2e|fldln2|fldl2t|fldlg2 - 2p01
form fchs|fabs - p0
form fsqrt - p0 lat=20 div=7
form frndint - 17p0156 lat=21
form fxam - 2p0156 lat=2
form fnstsw - 2p0156 lat=3                        # fnstsw ax (ax implicit)
form fnstsw m p0156+p237+p4
form fnstcw m 2p0156+p237+p4
form fldcw m p23+2p0156 lat=7
form fwait - 2p0156
form fnstenv|fldenv|fnsave|frstor|fxsave|fxrstor|fxsave64|fxrstor64 m 60p0156+10p23+10p237+10p4 lat=60 fused=80

# ========================================================================
# MXCSR, vzeroupper
# ========================================================================
form vzeroupper - - lat=0 fused=4                 # 4 µops that do not execute (handled at rename)
form vzeroall - 12p0156 lat=0 fused=25
form vldmxcsr|ldmxcsr m p23+2p0156 lat=6           # partly serializing in hardware; rare in hot code
form vstmxcsr|stmxcsr m p0156+p237+p4
form emms - 10p0156

# ========================================================================
# Category fallbacks ("modelled approximately"): used only when no form
# above matches, in this order. Operands with memory carry their load or
# store µops explicitly since these lines are not derived.
# ========================================================================
category gather|avx2gather * 8p23+p0+p5+p015 lat=15 fused=5
category scatter * 8p237+8p4+p0+p5+2p015 fused=12
category aes|vaes x,* p0 lat=4
category aes|vaes * p0 lat=4
category pclmulqdq|vpclmulqdq * p5 lat=6
category sttni * 3p0 lat=10
category conflict * 9p5+12p015 lat=17
category compress|expand * 2p5 lat=3
category kmask k,* p0
category kmask * p0 lat=3
category vfma|ufma|fma4 v,v,m p01+p23 lat=4
category vfma|ufma|fma4 * p01 lat=4
category convert v,m p01+p5+p23 lat=5
category convert r,* p0+p01 lat=6
category convert * p01+p5 lat=5
category broadcast v,m p23 lat=0
category broadcast * p5 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend m,* p237+p4
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,m p23 lat=0
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,m p015+p23 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,m,* p015+p23 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,mb p015+p23 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend v,v,mb,* p015+p23 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend z,* p05 lat=3
category sse|avx|avx2|avx512|avx512_vbmi|avx512_bitalg|vbmi2|gfni|ifma|avx512_4fmaps|avx512_4vnniw|avx512_vp2intersect|fp16|logical_fp|blend * p015 lat=3
category x87_alu|fcmov m,* p01+p23 lat=4         # x87 with a memory operand not written above (fbld, ...)
category x87_alu|fcmov * p01 lat=3              # x87 on st(i) registers (no operand kind for them in the key)
category mmx * p015 lat=1
category cmov r,m p06+p23
category cmov * p06
category setcc m,* p06+p237+p4
category setcc * p06
category shift|rotate m,* p06+p23+p237+p4 fused=3
category shift|rotate * p06
category bitbyte|bmi1|bmi2|lzcnt|tbm * p15 lat=1
category binary|logical|dataxfer|flagop|misc m,* p0156+p23+p237+p4
category binary|logical|dataxfer|flagop|misc r,m p0156+p23
category binary|logical|dataxfer|flagop|misc r,m,* p0156+p23
category binary|logical|dataxfer|flagop|misc * p0156
category push * p237+p4
category pop * p23 lat=0
category call * p237+p4+p6
category ret * p23+p6 fused=2
category cond_br|uncond_br * p6
category stringop|iostringop * 4p23+4p237+4p4+16p0156 lat=20 fused=24
category nop|widenop * - lat=0 fused=1
category prefetch|cldemote|clflushopt|clwb * p23 lat=0
category semaphore * p23+p237+p4+6p0156 lat=18 serial
category system|syscall|sysret|interrupt|serialize|io|segop|xsave|xsaveopt|sgx|vtx|tsx_ldtrk|rdpid|rdrand|rdseed|rdwrfsgs|pconfig|uintr|waitpkg * 20p0156 lat=30 serial
category * * p0156 lat=1
