"""What bench/runtime_bench.py and bench/transformer_bench.py share: their command-line
options for the model x batch x threads matrix, running a child process and reading its last
JSON line, one measurement in a fresh process with the thread variables
set, medians over rounds, the OpenBLAS check for PyTorch, op counts of a model, cache
staleness, and the JSON report file.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"  # Debian's python3-torch lives there, not in a virtualenv
PROG = os.path.basename(sys.argv[0]).removesuffix(".py")


class CommandFailed(SystemExit):
    """A child process failed. Uncaught, it ends the script with the message (as sys.exit
    does); a caller that can go on (a failed row of a matrix) catches it."""

    def __init__(self, cmd, code, stderr):
        super().__init__(f"{PROG}: command failed ({code}): {' '.join(cmd)}\n{stderr or ''}")
        self.cmd, self.returncode, self.stderr = cmd, code, stderr or ""

    def last_line(self):
        lines = [line for line in self.stderr.strip().splitlines() if line.strip()]
        return lines[-1] if lines else f"exit {self.returncode}"


def matrix_parser(doc, models, cache, build_help, no_build_help, quick_help, iters):
    """An argument parser with the options both benchmarks take: --build, --cache (default
    BUILD/tmp/`cache`), --models, --batches, --threads, --iters, --warmup, --rounds, --quick,
    --no-build, --no-install, --json."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help=build_help)
    ap.add_argument("--cache", help=f"exported and rewritten models; default BUILD/tmp/{cache}")
    ap.add_argument("--models", nargs="+", default=models, choices=models)
    ap.add_argument("--batches", nargs="+", type=int, default=[1, 8])
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--iters", type=int, default=iters, help="timed runs per process (median)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3,
                    help="processes per tool and configuration, interleaved (median over rounds)")
    ap.add_argument("--quick", action="store_true", help=quick_help)
    ap.add_argument("--no-build", action="store_true", help=no_build_help)
    ap.add_argument("--no-install", action="store_true", help="do not apt-get install libopenblas0-pthread")
    ap.add_argument("--json", metavar="FILE", help="write every figure (all rounds) to FILE")
    return ap


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, env=None, capture=True):
    proc = subprocess.run(cmd, text=True, capture_output=capture, env=env)
    if proc.returncode != 0:
        raise CommandFailed(cmd, proc.returncode, proc.stderr)
    return proc.stdout


def last_json(text):
    return json.loads(text.strip().splitlines()[-1])


def blas_library():
    """libblas.so.3 and the file it resolves to through Debian's alternatives, or None."""
    links = sorted(glob.glob("/usr/lib/*-linux-gnu/libblas.so.3"))
    return (links[0], os.path.realpath(links[0])) if links else None


def ensure_openblas(install, slow="its figures are too slow"):
    """Debian's torch (BLAS_INFO=generic) calls whatever libblas.so.3 alternative is installed.
    Without OpenBLAS that is the netlib reference BLAS, which would make PyTorch's linear
    layers and its non-oneDNN convolution paths look slower than they are. The pthread
    build keeps its threads apart from OpenMP's. `slow` says what the reference BLAS would
    spoil, for the warning. Returns the package status for the report."""
    pkg = "libopenblas0-pthread"
    if subprocess.run(["dpkg", "-s", pkg], capture_output=True).returncode == 0:
        blas = blas_library()
        if blas and "openblas" not in blas[1]:
            arch = os.path.basename(os.path.dirname(blas[0]))
            log(f"warning: libblas.so.3 is {blas[1]}, not OpenBLAS, so PyTorch runs on the "
                f"reference BLAS and {slow}; select OpenBLAS first: "
                f"update-alternatives --auto libblas.so.3-{arch}")
            return "not selected"
        return "installed"
    if not install or os.geteuid() != 0:
        log(f"warning: {pkg} is not installed, so PyTorch runs on the reference BLAS and {slow}; "
            f"install it first: apt-get install -y {pkg}")
        return "missing"
    log(f"installing {pkg} (apt-get) so PyTorch's BLAS calls are not the reference BLAS")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if subprocess.run(["apt-get", "install", "-y", "-q", pkg], env=env,
                      stdout=subprocess.DEVNULL).returncode != 0:
        run(["apt-get", "update", "-q"], env=env)
        run(["apt-get", "install", "-y", "-q", pkg], env=env)
    return f"installed by {PROG}"


def newest_mtime(paths):
    return max(os.path.getmtime(p) for p in paths)


def exporter_sources():
    """tools/export_fx.py and every module of tools/export: a cached export older than any of
    them is redone."""
    return [os.path.join(ROOT, "tools/export_fx.py")] + [
        os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(ROOT, "tools/export")) for f in fs
        if f.endswith(".py")]


def rule_files():
    rules_dir = os.path.join(ROOT, "rules")
    return [os.path.join(rules_dir, f) for f in os.listdir(rules_dir) if f.endswith(".rules")]


def stale(path, sources):
    """True if `path` is missing or older than any of `sources`."""
    return not os.path.exists(path) or os.path.getmtime(path) < newest_mtime(sources)


def op_counts(path):
    counts = {}
    with open(path) as f:
        for node in json.load(f)["nodes"]:
            if node["op"] == "call_function":
                counts[node["target"]] = counts.get(node["target"], 0) + 1
    return counts


def thread_env(threads, wait_policy=None):
    """The environment of a process given `threads` cores, with OMP_WAIT_POLICY if given."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    if wait_policy:
        env["OMP_WAIT_POLICY"] = wait_policy
    return env


def measure(cmd, threads):
    """Runs `cmd` with OMP_NUM_THREADS and OPENBLAS_NUM_THREADS set to `threads` and returns
    its last line's JSON with the 1-minute load average before it and its wall time.

    A PyTorch process (bench/torch_bench.py) runs under both OpenMP wait policies and keeps the
    faster: spinning threads suit its oneDNN convolutions (ResNet-18, batch 1, two threads:
    eager 24 ms spinning, 30 ms asleep), sleeping ones its linear layers, which run in
    OpenBLAS's own threads beside PyTorch's (BERT-base: 461 ms spinning, 150 ms asleep)."""
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    if any(os.path.basename(str(c)) == "torch_bench.py" for c in cmd):
        by_policy = {p: last_json(run(cmd, env=thread_env(threads, p))) for p in ("ACTIVE", "PASSIVE")}
        policy = min(by_policy, key=lambda p: by_policy[p]["p50_ms"])
        result = dict(by_policy[policy], omp_wait_policy=policy,
                      p50_ms_by_wait_policy={p: r["p50_ms"] for p, r in by_policy.items()})
    else:
        result = last_json(run(cmd, env=thread_env(threads)))
    result["load1_before"] = load
    result["wall_s"] = time.monotonic() - t0
    return result


def summarise(runs):
    """Median over rounds of each round's p50 (and of its peak RSS)."""
    return {"p50_ms": statistics.median(r["p50_ms"] for r in runs),
            "p50_ms_rounds": [r["p50_ms"] for r in runs],
            "peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in runs),
            "load1": [round(r["load1_before"], 2) for r in runs],
            "runs": runs}


def write_json(path, meta, rows):
    """Writes {"meta": …, "rows": …} to `path` through a temporary file (never half-written),
    with the date, kernel, CPU count and command line added to `meta`."""
    meta = dict({"date": time.strftime("%Y-%m-%d %H:%M:%S"), "uname": os.uname().release,
                 "cpus": os.cpu_count()}, **meta, argv=sys.argv)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    os.replace(tmp, path)
