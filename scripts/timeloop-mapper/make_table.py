#!/usr/bin/python3
"""Reads results.jsonl (run_compare.py) and prints the Markdown comparison table(s) and geometric means.
usage: make_table.py [KIND ...]   (default: mapper-delay-energy-same mapper-delay-energy-keep)"""
import tempfile, json, math, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("OUT", os.path.join(tempfile.gettempdir(), "timeloop-mapper-runs"))
recs = {}
for line in open(os.path.join(OUT, "results.jsonl")):
    r = json.loads(line)
    recs[(r["hw"], r["layer"], r["kind"])] = r  # the last run of a key wins
kinds = sys.argv[1:] or ["mapper-delay-energy-same", "mapper-delay-energy-keep"]
order = []
for (hw, layer, kind) in recs:
    if kind.startswith("ours") and (hw, layer) not in order:
        order.append((hw, layer))


def fmt(x, d=2):
    if x is None: return "-"
    if isinstance(x, int): return f"{x:,}"
    return f"{x:,.{d}f}"


# "best:A+B": per layer the better of runs A and B as the mapper ranks (cycles, then energy); its CPU
# time is the sum of both runs'
for kind in kinds:
    if kind.startswith("best:"):
        parts = kind[5:].split("+")
        for (hw, layer) in order:
            rs = [recs[(hw, layer, k)] for k in parts if (hw, layer, k) in recs and recs[(hw, layer, k)].get("stats")]
            if rs:
                b = dict(min(rs, key=lambda r: (r["stats"]["cycles"], r["stats"]["energy_uJ"])))
                b["cpu_s"] = sum(r["cpu_s"] for r in rs)
                recs[(hw, layer, kind)] = b
for kind in kinds:
    ok = "ours-" + kind.rsplit("-", 1)[1] if kind.endswith(("-energy", "-edp")) else "ours"
    print(f"\n### {kind} (against {ok})\n")
    print("| layer | accelerator | ours: cycles (Timeloop's model of our mapping) | ours: energy uJ | ours: search CPU s "
          "| mapper: cycles | mapper: energy uJ | mapper: CPU s | cycles ours/mapper | energy ours/mapper |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    cr, er = [], []
    wins = {"cycles": [0, 0, 0], "energy": [0, 0, 0]}  # ours better, tie, mapper better
    for hw, layer in order:
        if (hw, layer, ok) not in recs:
            continue
        o = recs[(hw, layer, ok)]
        m = recs.get((hw, layer, kind))
        tm = o.get("tl_model") or {}
        ms = (m or {}).get("stats") or {}
        c = e = None
        if tm.get("cycles") and ms.get("cycles"):
            c = tm["cycles"] / ms["cycles"]; cr.append(c)
            wins["cycles"][0 if c < 0.995 else 1 if c <= 1.005 else 2] += 1
        if tm.get("energy_uJ") and ms.get("energy_uJ"):
            e = tm["energy_uJ"] / ms["energy_uJ"]; er.append(e)
            wins["energy"][0 if e < 0.995 else 1 if e <= 1.005 else 2] += 1
        mc = ms.get("cycles") if m else None
        print(f"| {layer} | {hw} | {fmt(tm.get('cycles'))} | {fmt(tm.get('energy_uJ'))} | {fmt(o.get('cpu_s'))} "
              f"| {fmt(mc) if m and m.get('stats') else ('failed' if m else 'not run')} | {fmt(ms.get('energy_uJ'))} "
              f"| {fmt(m.get('cpu_s') if m else None, 1)} | {fmt(c, 3)} | {fmt(e, 3)} |")
    g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
    print(f"\ngeomean cycles ours/mapper {g(cr):.3f} over {len(cr)}; energy ours/mapper {g(er):.3f} over {len(er)}")
    print(f"cycles: ours better {wins['cycles'][0]}, tie {wins['cycles'][1]}, mapper better {wins['cycles'][2]}; "
          f"energy: ours better {wins['energy'][0]}, tie {wins['energy'][1]}, mapper better {wins['energy'][2]}")
    ocpu = [recs[(h, l, ok)]['cpu_s'] for h, l in order if (h, l, ok) in recs and recs[(h, l, ok)].get('cpu_s')]
    mcpu = [recs[(h, l, kind)]['cpu_s'] for h, l in order if (h, l, kind) in recs and recs[(h, l, kind)].get('cpu_s')]
    print(f"CPU s: ours total {sum(ocpu):.1f} (geomean {g(ocpu):.2f}); mapper total {sum(mcpu):.1f} (geomean {g(mcpu):.2f})")
