#!/usr/bin/python3
"""Marvel's mapping search (--timeloop-compatible) against Timeloop's own mapper.

Per (accelerator, layer):
  1. marvel search --fidelity corrected --timeloop-compatible --threads 1 --objective runtime
     --export-timeloop OUT/<hw>/   (CPU time from /usr/bin/time; our runtime cycles from --json)
  2. timeloop-model on the export: Timeloop's cycles and energy for OUR mapping
  3. timeloop-mapper on the SAME arch.yaml/problem.yaml/ert.yaml, no mapspace constraints
     (variant "same"), the same with every data space kept in both buffers (variant "keep",
     no bypass), and optionally on the whole accelerator (variant "full": every PE laid
     out as a 1-D mesh of N x 1, the ERT's PE ranges renamed to match)
Every process runs under `nice -n 19`, single-threaded. Results go to OUT/results.jsonl (one line
per run, appended) so that an interrupted run can be resumed (done runs are skipped).

Environment: TIMELOOP_HOME (bin/ and lib/ of a Timeloop build, ../shared/guides/timeloop-oracle.md;
required), MARVEL (the marvel binary, default build/app/marvel), MARVEL_CWD (the repo, so samples/
resolve; default the repo this script is in), OUT (default: timeloop-mapper-runs under the system's
temporary folder).
usage: run_compare.py [--variants same,keep,full,fullkeep] [--metrics delay,energy] [--only HW:LAYER,...]
"""
import argparse, json, os, re, shutil, signal, subprocess, sys

import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MARVEL_CWD = os.environ.get("MARVEL_CWD", REPO)
MARVEL = os.environ.get("MARVEL", os.path.join(MARVEL_CWD, "build", "app", "marvel"))
if "TIMELOOP_HOME" not in os.environ:
    sys.exit("run_compare.py: set TIMELOOP_HOME to a Timeloop build (../shared/guides/timeloop-oracle.md)")
TL = os.environ["TIMELOOP_HOME"]
OUT = os.environ.get("OUT", os.path.join(tempfile.gettempdir(), "timeloop-mapper-runs"))
ENV = dict(os.environ, LD_LIBRARY_PATH=os.path.join(TL, "lib"))

HWS = {"P1_eyeriss": ("samples/accelerators/P1_eyeriss.json", 168),
       "edge1024_dram": ("samples/accelerators/edge1024_dram.json", 1024)}

# name -> marvel workload arguments
LAYERS = [
    ("res2a_branch2a", ["--model", "resnet50", "--layer", "res2a_branch2a"]),   # 1x1 conv
    ("res3a_branch2b", ["--model", "resnet50", "--layer", "res3a_branch2b"]),   # 3x3 conv
    ("CONV4_1", ["--model", "vgg16", "--layer", "CONV4_1"]),                    # 3x3 conv
    ("CONV2", ["--model", "alexnet", "--layer", "CONV2"]),                      # 5x5 conv
    ("b4_dw", ["--model", "mobilenetv2", "--layer", "b4_dw"]),                  # depth-wise 3x3, stride 2
    ("b4_project", ["--model", "mobilenetv2", "--layer", "b4_project"]),        # pointwise
    ("gemm", ["--op", "samples/operators/gemm.loop"]),                         # GEMM 128x2048x4096
    ("bert_ffn1", ["--op", os.path.join(HERE, "bert_ffn1.loop")]),              # BERT-base FFN1
]

MAPPER_YAML = """mapper:
  optimization-metrics: [ {metrics} ]
  algorithm: random-pruned
  num-threads: 1
  victory-condition: {victory}
  timeout: {timeout}
  search-size: {search_size}
  max-permutations-per-if-visit: 16
  live-status: False
  log-stats: False
  diagnostics: False
"""


# Variant "keep": every data space kept in every buffer (no bypass), as an MDC mapping stages every
# tensor through L2 and L1.
KEEP_ALL = """mapspace_constraints:
  - target: PEBuffer
    type: datatype
    keep: [ Weights, Inputs, Outputs ]
    bypass: [ ]
  - target: GlobalBuffer
    type: datatype
    keep: [ Weights, Inputs, Outputs ]
    bypass: [ ]
"""


def proc_cpu(pid):
    """user+sys CPU seconds of a live process, or None."""
    try:
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    except Exception:
        return None


def timed(cmd, cwd, log, cpu_cap=0):
    """Runs cmd under nice -n 19 and /usr/bin/time; returns (rc, cpu seconds user+sys).
    cpu_cap > 0: sends SIGINT to the command (not to nice/time) once it has used cpu_cap CPU seconds;
    timeloop-mapper then stops its search and writes its best mapping as usual."""
    tfile = log + ".time"
    full = ["nice", "-n", "19", "/usr/bin/time", "-f", "%U %S", "-o", tfile] + cmd
    with open(log, "w") as f:
        p = subprocess.Popen(full, cwd=cwd, env=ENV, stdout=f, stderr=subprocess.STDOUT)
        interrupted = False
        while p.poll() is None:
            try:
                p.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
            if cpu_cap and not interrupted:
                # nice execs /usr/bin/time (pid p.pid), which forks the command
                try:
                    kids = open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()
                except Exception:
                    kids = []
                for k in kids:
                    c = proc_cpu(k)
                    if c is not None and c >= cpu_cap:
                        os.kill(int(k), signal.SIGINT)
                        interrupted = True
                        f.write(f"\n[run_compare: SIGINT after {c:.1f} CPU s]\n")
        rc = p.returncode
    cpu = None
    try:
        nums = open(tfile).read().split()[-2:]
        cpu = float(nums[0]) + float(nums[1])
    except Exception:
        pass
    return rc, cpu


def tl_stats(path):
    d = {}
    if not os.path.exists(path):
        return None
    for line in open(path):
        m = re.match(r"Cycles: (\d+)", line)
        if m: d["cycles"] = int(m.group(1))
        m = re.match(r"Energy: ([\d.eE+-]+) uJ", line)
        if m: d["energy_uJ"] = float(m.group(1))
        m = re.match(r"Utilization: ([\d.]+)", line)
        if m: d["utilization"] = float(m.group(1))
        m = re.match(r"EDP\(J\*cycle\): ([\d.eE+-]+)", line)
        if m: d["edp"] = float(m.group(1))
    return d if "cycles" in d else None


def full_arch(src_dir, dst_dir, num_pes):
    """The export's arch/ERT with every PE of the accelerator, as a 1-D mesh (N x 1)."""
    a = open(os.path.join(src_dir, "arch.yaml")).read()
    a = re.sub(r"PEBuffer\[0\.\.\d+\]", f"PEBuffer[0..{num_pes-1}]", a)
    a = re.sub(r"MAC\[0\.\.\d+\]", f"MAC[0..{num_pes-1}]", a)
    a = re.sub(r"meshX: \d+", f"meshX: {num_pes}", a)
    a = re.sub(r"meshY: \d+", "meshY: 1", a)
    open(os.path.join(dst_dir, "arch.yaml"), "w").write(a)
    e = open(os.path.join(src_dir, "ert.yaml")).read()
    e = re.sub(r"PEBuffer\[0\.\.\d+\]", f"PEBuffer[0..{num_pes-1}]", e)
    e = re.sub(r"MAC\[0\.\.\d+\]", f"MAC[0..{num_pes-1}]", e)
    open(os.path.join(dst_dir, "ert.yaml"), "w").write(e)


def done_keys(results):
    keys = set()
    if os.path.exists(results):
        for line in open(results):
            r = json.loads(line)
            keys.add((r["hw"], r["layer"], r["kind"]))
    return keys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", default="same")
    ap.add_argument("--metrics", default="delay,energy")
    ap.add_argument("--only", default="")
    ap.add_argument("--objective", default="runtime", help="our search's objective; not runtime: "
                    "exports go to OUT/<hw>-<objective>/, records are kind ours-<objective> and "
                    "mapper-...-<variant>-<objective>")
    ap.add_argument("--victory", type=int, default=500)
    ap.add_argument("--timeout", type=int, default=15000)
    ap.add_argument("--search-size", type=int, default=20000)
    ap.add_argument("--cpu-cap", type=float, default=0, help="SIGINT the mapper after this many CPU s")
    ap.add_argument("--tag", default="", help="suffix of the mapper records' kind (a second setting)")
    a = ap.parse_args()
    results = os.path.join(OUT, "results.jsonl")
    done = done_keys(results)
    only = set(a.only.split(",")) if a.only else None
    tag = "mapper-" + a.metrics.replace(",", "-") + a.tag
    sfx = "" if a.objective == "runtime" else "-" + a.objective
    ours_kind = "ours" + sfx

    def emit(rec):
        with open(results, "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps(rec), flush=True)

    for hw, (hwfile, num_pes) in HWS.items():
        for layer, wl in LAYERS:
            if only and f"{hw}:{layer}" not in only:
                continue
            exp_root = os.path.join(OUT, hw + sfx)
            exp = os.path.join(exp_root, layer)
            os.makedirs(exp_root, exist_ok=True)
            # 1 + 2: our search, then Timeloop's model of our mapping
            if (hw, layer, ours_kind) not in done:
                log = os.path.join(exp_root, layer + ".marvel.json")
                cmd = [MARVEL, "search"] + wl + ["--hw", hwfile, "--fidelity", "corrected",
                       "--timeloop-compatible", "--threads", "1", "--objective", a.objective,
                       "--json", "--export-timeloop", exp_root]
                tfile = log + ".time"
                with open(log, "w") as fo, open(log + ".stderr", "w") as fe:
                    rc = subprocess.run(["nice", "-n", "19", "/usr/bin/time", "-f", "%U %S", "-o", tfile] + cmd,
                                        cwd=MARVEL_CWD, stdout=fo, stderr=fe).returncode
                u, s = open(tfile).read().split()[-2:]
                rec = {"hw": hw, "layer": layer, "kind": ours_kind, "rc": rc, "cpu_s": float(u) + float(s)}
                err = open(log + ".stderr").read()
                m = re.search(r"timeloop: \S+: (exported to .*|not exported.*)", err)
                rec["export"] = m.group(1)[:400] if m else err[-400:]
                try:
                    j = json.load(open(log))
                    L = j["layers"][0]
                    rec.update(our_cycles=L.get("runtime_cycles"), our_energy=L.get("energy"),
                               marvel_name=L.get("name"), search_seconds=L.get("seconds"))
                except Exception as ex:
                    rec["json_error"] = str(ex)
                # the export folder is named after the layer as marvel names it
                if rec.get("marvel_name") and rec["marvel_name"] != layer:
                    src = os.path.join(exp_root, rec["marvel_name"])
                    if os.path.isdir(src):
                        if os.path.isdir(exp): shutil.rmtree(exp)
                        os.rename(src, exp)
                if os.path.exists(os.path.join(exp, "map.yaml")):
                    rc2, cpu2 = timed([os.path.join(TL, "bin", "timeloop-model"), "arch.yaml", "problem.yaml",
                                       "map.yaml", "ert.yaml"], exp, os.path.join(exp, "model.log"))
                    st = tl_stats(os.path.join(exp, "timeloop-model.stats.txt"))
                    rec["tl_model"] = st
                    rec["tl_model_rc"] = rc2
                emit(rec)
            # 3: Timeloop's mapper
            if not os.path.exists(os.path.join(exp, "arch.yaml")):
                continue
            for variant in a.variants.split(","):
                kind = f"{tag}-{variant}{sfx}"
                if (hw, layer, kind) in done:
                    continue
                d = os.path.join(exp, kind)
                if os.path.isdir(d): shutil.rmtree(d)
                os.makedirs(d)
                shutil.copy(os.path.join(exp, "problem.yaml"), d)
                if variant in ("same", "keep"):
                    shutil.copy(os.path.join(exp, "arch.yaml"), d)
                    shutil.copy(os.path.join(exp, "ert.yaml"), d)
                else:  # "full", "fullkeep"
                    full_arch(exp, d, num_pes)
                files = ["arch.yaml", "problem.yaml", "mapper.yaml"]
                if variant in ("keep", "fullkeep"):
                    open(os.path.join(d, "constraints.yaml"), "w").write(KEEP_ALL)
                    files.append("constraints.yaml")
                open(os.path.join(d, "mapper.yaml"), "w").write(MAPPER_YAML.format(
                    metrics=", ".join(a.metrics.split(",")), victory=a.victory, timeout=a.timeout,
                    search_size=a.search_size))
                rc, cpu = timed([os.path.join(TL, "bin", "timeloop-mapper")] + files + ["ert.yaml"], d, os.path.join(d, "mapper.log"),
                                cpu_cap=a.cpu_cap)
                st = tl_stats(os.path.join(d, "timeloop-mapper.stats.txt"))
                emit({"hw": hw, "layer": layer, "kind": kind, "rc": rc, "cpu_s": cpu, "stats": st,
                      "settings": {"victory": a.victory, "timeout": a.timeout, "search_size": a.search_size,
                                   "cpu_cap": a.cpu_cap},
                      "interrupted": "SIGINT after" in open(os.path.join(d, "mapper.log")).read()})


if __name__ == "__main__":
    main()
