# SPDX-License-Identifier: GPL-2.0-or-later
"""Invariants every simulation of gus must keep, checked on its JSON
(tests/cli/test_sim_invariants.sh).

usage: python3 invariants.py [--whole-focus] [--btb-chain] [--text FILE]...
                             [--min-regions N] [--objects FILE] LABEL FILE.json

FILE.json is the JSON of gus sim (one simulation) or of gus report (each
region's "simulated" object). The machine's widths come from its model,
$GUS_DATADIR/machines/NAME.mm (lines "frontend N" and "retire N"). Prints
one "# LABEL: ..." line per simulation checked and per violation, with the
numbers; exits 1 when an invariant does not hold, 2 on bad input.

  --whole-focus  the time per iteration is the whole measured stream's
                 (a function simulated whole): cycles_per_iteration x
                 iterations_measured = cycles_measured
  --btb-chain    a stream of direct jumps only: no conditional branch,
                 and the BTB lacked targets
  --text FILE    gus's text output of the same stream(s): no kind of
                 misprediction counted against fewer branches than it
                 has ("71720 of 0 conditional"), and a sweep that shows
                 an envelope says so
  --min-regions N  a report must have at least N simulated regions
  --objects FILE   appends the object of each simulated region of a report
                 (its file's name: libc.so.6, python3.11) to FILE, a line each
"""
import json
import os
import re
import sys

# JSON numbers carry 9 significant digits: a relation that holds by
# definition (IPC = instructions / cycles) holds to this
REL = 1e-6
# the Top-Down shares sum to 100 %, to half a percent
SHARE_TOL = 0.005

failures = []


def fail(label, what):
    failures.append("%s: %s" % (label, what))


def near(a, b, rel=REL, abs_tol=1e-9):
    return abs(a - b) <= max(abs_tol, rel * max(abs(a), abs(b)))


_widths = {}


def widths(machine):
    """(frontend, retire) of the machine model NAME.mm"""
    if machine in _widths:
        return _widths[machine]
    datadir = os.environ.get("GUS_DATADIR")
    if not datadir:
        sys.exit("invariants.py: GUS_DATADIR is not set")
    path = os.path.join(datadir, "machines", machine + ".mm")
    fe = rt = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            w = line.split("#", 1)[0].split()
            if len(w) == 2 and w[0] == "frontend":
                fe = float(w[1])
            elif len(w) == 2 and w[0] == "retire":
                rt = float(w[1])
    if fe is None:
        sys.exit("invariants.py: %s has no frontend line" % path)
    if rt is None:	# FORMAT: the default is the frontend width
        rt = fe
    _widths[machine] = (fe, rt)
    return fe, rt


def num(s, key, label):
    v = s.get(key)
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        fail(label, "%s is %r, not a number" % (key, v))
        return None
    return float(v)


def check_sim(label, s, whole_focus=False, btb_chain=False):
    machine = s.get("machine")
    fe, rt = widths(machine)
    # the narrowest stage bounds what flows through them all
    width = min(fe, rt)
    label = "%s [%s]" % (label, machine)
    before = len(failures)

    cyc = num(s, "cycles", label)
    insns = num(s, "instructions", label)
    fused = num(s, "fused_uops", label)
    ipc = num(s, "ipc", label)
    fpc = num(s, "fused_uops_per_cycle", label)
    cm = num(s, "cycles_measured", label)
    im = num(s, "instructions_measured", label)
    if None in (cyc, insns, fused, ipc, fpc, cm, im):
        return
    # widths: the front end issues, and retirement takes, at most WIDTH
    # fused-domain µops a cycle; a macro-fused pair is two instructions
    # in one of them
    if ipc > 2 * width * (1 + REL):
        fail(label, "IPC %g > 2 x width %g (machine %s: frontend %g, retire %g)" % (ipc, width, machine, fe, rt))
    if fpc > width * (1 + REL):
        fail(label, "fused µops per cycle %g > width %g (frontend %g, retire %g)" % (fpc, width, fe, rt))
    fused_measured = fpc * cm
    if cm < fused_measured / width * (1 - REL):
        fail(label, "cycles_measured %g < fused µops measured %.0f / width %g = %g"
             % (cm, fused_measured, width, fused_measured / width))
    if cyc < fused / width * (1 - REL):
        fail(label, "cycles %g < fused µops %g / width %g = %g (whole run)" % (cyc, fused, width, fused / width))
    if insns > 0 and cyc > 0 and insns / cyc > 2 * width * (1 + REL):
        fail(label, "instructions / cycles %g > 2 x width %g (whole run)" % (insns / cyc, width))
    # what is measured is part of what was simulated (unless it is the
    # run's estimate from the windows, each weighted by the time it stands
    # for, scaled to the stream's measured instructions: run_weighted)
    weighted = s.get("run_weighted") is True
    if (cm > cyc * (1 + REL) and not weighted) or cm < 0:
        fail(label, "cycles_measured %g not within [0, cycles %g]" % (cm, cyc))
    if im > insns or im < 0:
        fail(label, "instructions_measured %g not within [0, instructions %g]" % (im, insns))
    if fused_measured > fused * (1 + REL) + 1 and not weighted:
        fail(label, "fused µops measured %g (fused_uops_per_cycle x cycles_measured) > fused_uops %g"
             % (fused_measured, fused))
    if cm > 0 and not near(ipc, im / cm):
        fail(label, "IPC %g != instructions_measured / cycles_measured = %g / %g = %g" % (ipc, im, cm, im / cm))

    # simulated Top-Down: shares of the issue slots
    td = s.get("topdown") or {}
    keys = ("retiring", "frontend_bound", "bad_speculation", "backend_bound", "memory_bound", "core_bound")
    if not all(isinstance(td.get(k), (int, float)) for k in keys + ("slots",)):
        fail(label, "topdown lacks a share: %r" % td)
    else:
        for k in keys:
            if td[k] < -1e-9 or td[k] > 1 + 1e-9:
                fail(label, "topdown %s = %g, not a share" % (k, td[k]))
        top = td["retiring"] + td["frontend_bound"] + td["bad_speculation"] + td["backend_bound"]
        if abs(top - 1) > SHARE_TOL and td["slots"] > 0:
            fail(label, "topdown level 1 sums to %.4f (retiring %g + frontend %g + bad speculation %g + backend %g)"
                 % (top, td["retiring"], td["frontend_bound"], td["bad_speculation"], td["backend_bound"]))
        be = td["memory_bound"] + td["core_bound"]
        if abs(be - td["backend_bound"]) > SHARE_TOL:
            fail(label, "memory %g + core %g = %g != backend bound %g"
                 % (td["memory_bound"], td["core_bound"], be, td["backend_bound"]))
        if not near(td["slots"], fe * cyc):
            fail(label, "topdown slots %g != frontend %g x cycles %g" % (td["slots"], fe, cyc))

    # cycles per iteration x iterations = the region's cycles
    iters = s.get("iterations_measured") or 0
    cpi = s.get("cycles_per_iteration")
    scpi = s.get("stream_cycles_per_iteration")
    if iters > 0:
        if not isinstance(cpi, (int, float)) or not isinstance(scpi, (int, float)):
            fail(label, "%d iterations measured but cycles per iteration %r, with the code around it %r"
                 % (iters, cpi, scpi))
        else:
            if not near(scpi * iters, cm):
                fail(label, "stream_cycles_per_iteration %g x iterations_measured %d = %g != cycles_measured %g"
                     % (scpi, iters, scpi * iters, cm))
            if cpi > scpi * (1 + REL):
                fail(label, "cycles_per_iteration %g (the loop's own) > %g with the code around it" % (cpi, scpi))
            if cpi < 0:
                fail(label, "cycles_per_iteration %g < 0" % cpi)
            if whole_focus and not near(cpi * iters, cm):
                fail(label, "cycles_per_iteration %g x iterations_measured %d = %g != cycles_measured %g"
                     % (cpi, iters, cpi * iters, cm))
    elif whole_focus:
        fail(label, "no iteration measured (iterations_measured %r)" % iters)

    # mispredictions against the branches they are counted against
    e = s.get("events") or {}
    ek = ("branches", "mispredictions", "conditional_branches", "conditional_mispredicted",
          "indirect_branches", "indirect_mispredicted", "target_misses", "btb_misses")
    if not all(isinstance(e.get(k), int) for k in ek):
        fail(label, "events lack a count: %r" % {k: e.get(k) for k in ek})
    else:
        b, m = e["branches"], e["mispredictions"]
        cb, cmiss = e["conditional_branches"], e["conditional_mispredicted"]
        ib, imiss = e["indirect_branches"], e["indirect_mispredicted"]
        tm, btb = e["target_misses"], e["btb_misses"]
        if m > b:
            fail(label, "mispredictions %d > branches %d" % (m, b))
        if cmiss > cb:
            fail(label, "conditional mispredicted %d > conditional branches %d" % (cmiss, cb))
        if imiss > ib:
            fail(label, "indirect mispredicted %d > indirect branches %d" % (imiss, ib))
        if cb + ib > b:
            fail(label, "conditional %d + indirect %d > branches %d" % (cb, ib, b))
        if m != cmiss + imiss + tm:
            fail(label, "mispredictions %d != conditional %d + indirect %d + BTB targets %d" % (m, cmiss, imiss, tm))
        if tm > btb:
            fail(label, "targets the BTB lacked %d > BTB misses %d" % (tm, btb))
        if btb_chain:
            if cb != 0:
                fail(label, "a chain of jumps has %d conditional branches" % cb)
            if tm <= 0:
                fail(label, "a chain of 5000 jumps had no target the BTB lacked (target_misses %d, mispredictions %d)"
                     % (tm, m))

    # sensitivity: more of a resource never slows the model (the sweep
    # gives the envelope where the model itself was not monotonic)
    weights = s.get("weights") or []
    for se in s.get("sensitivity") or []:
        name = "+".join(se.get("resources") or ["?"])
        sp = se.get("speedup") or []
        ub = se.get("upper_bound")
        if len(sp) != len(weights) or not isinstance(ub, (int, float)):
            fail(label, "%s: %d speedups for %d weights, upper bound %r" % (name, len(sp), len(weights), ub))
            continue
        prev = None
        for w, v in zip(weights, sp):
            if w >= 1 and v < 0:
                fail(label, "%s: speedup %g < 0 at weight %g" % (name, v, w))
            if w < 1 and v > 0:
                fail(label, "%s: speedup %g > 0 with less capacity (weight %g)" % (name, v, w))
            if w == 1 and v != 0:
                fail(label, "%s: speedup %g at weight 1 (the machine itself)" % (name, v))
            if prev is not None and v < prev:
                fail(label, "%s: speedup falls from %g to %g at weight %g (weights %s, speedups %s)"
                     % (name, prev, v, w, weights, sp))
            prev = v
            if v > ub:
                fail(label, "%s: speedup %g at weight %g > upper bound %g" % (name, v, w, ub))
        if ub < 0:
            fail(label, "%s: upper bound %g < 0" % (name, ub))
        dip = se.get("dip")
        if se.get("envelope") and not (isinstance(dip, (int, float)) and dip > 0):
            fail(label, "%s: an envelope without a dip (%r)" % (name, dip))
        if se.get("envelope"):
            print("# %s: %s not monotonic in the model, by up to %.2f %%: the envelope is reported"
                  % (label, name, 100 * dip))
        thr = s.get("threshold")
        if sp and isinstance(thr, (int, float)) and weights[-1] >= 1 and se.get("bottleneck") != (sp[-1] >= thr):
            fail(label, "%s: bottleneck %r with %g at the top weight (threshold %g)"
                 % (name, se.get("bottleneck"), sp[-1], thr))

    print("# %s: %s: IPC %.3f, fused µops/cycle %.3f (width %g), %d cycles measured of %d, %s iterations, "
          "%d of %d branches mispredicted, %d passes"
          % ("ok" if len(failures) == before else "FAILED", label, ipc, fpc, width, cm, cyc, iters,
             e.get("mispredictions", -1), e.get("branches", -1), s.get("passes") or 1))


# "N of B branches: C of M conditional, I of K indirect, T target(s)"
MISP = re.compile(r"branch mispredictions\s+(\d+) of (\d+) branches: (\d+) of (\d+) conditional, "
                  r"(\d+) of (\d+) indirect")
OLD = re.compile(r"(\d+) of (\d+) conditional")


def check_text(label, path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    label = "%s (text)" % label
    seen = 0
    for m in OLD.finditer(text):
        c, n = int(m.group(1)), int(m.group(2))
        if c > n:
            fail(label, "says %r: more mispredicted than conditional branches" % m.group(0))
    for m in MISP.finditer(text):
        seen += 1
        mis, b, c, cn, i, iN = (int(x) for x in m.groups())
        if mis > b or c > cn or i > iN:
            fail(label, "says %r" % m.group(0))
    # the mark ~ of an envelope row comes with the line that explains it
    rows = [l for l in text.splitlines() if re.search(r"%\s+~$", l)]
    note = "the row is the envelope" in text
    if rows and not note:
        fail(label, "envelope rows marked ~ without the note: %r" % rows[:2])
    if note and not rows:
        fail(label, "an envelope note without a row marked ~")
    return seen


def main(argv):
    whole = btb = False
    texts = []
    min_regions = 0
    objects = None
    args = list(argv)
    while args and args[0].startswith("--"):
        a = args.pop(0)
        if a == "--whole-focus":
            whole = True
        elif a == "--btb-chain":
            btb = True
        elif a == "--text" and args:
            texts.append(args.pop(0))
        elif a == "--min-regions" and args:
            min_regions = int(args.pop(0))
        elif a == "--objects" and args:
            objects = args.pop(0)
        else:
            sys.exit(__doc__)
    if len(args) != 2:
        sys.exit(__doc__)
    label, path = args
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        print("# %s: cannot read %s: %s" % (label, path, e))
        return 2
    if "regions" in d:	# gus report
        n = 0
        names = []
        for r in d["regions"]:
            s = r.get("simulated")
            if not s:
                continue
            n += 1
            names.append(os.path.basename(r.get("file") or "?"))
            # a function region's stream is the function: its time per
            # call is all of the measured time
            check_sim("%s: region %s %s" % (label, r.get("rank"), r.get("name")), s,
                      whole_focus=whole or (r.get("kind") == "function" and (s.get("iterations_measured") or 0) > 0),
                      btb_chain=btb)
        if n < min_regions:
            fail(label, "%d simulated regions, want at least %d" % (n, min_regions))
        print("# %s: %d simulated regions checked" % (label, n))
        if objects:
            with open(objects, "a", encoding="utf-8") as f:
                f.writelines(x + "\n" for x in names)
    else:
        check_sim(label, d, whole_focus=whole, btb_chain=btb)
    for t in texts:
        check_text(label, t)
    for f in failures:
        print("# VIOLATION %s" % f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
