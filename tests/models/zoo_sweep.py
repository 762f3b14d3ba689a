#!/usr/bin/python3
"""torchvision's model zoo through graft: every builder of the chosen kinds exported, run before
and after rules/std.rules, and compared with PyTorch (one model_test.py run each), with a
summary of what passed and why the others failed.

    zoo_sweep.py --rewrite BIN --source-dir SRC --work DIR [--kinds classification,...]
                 [--models a,b] [--skip a,b] [--jobs J] [--timeout S] [--json FILE]
                 [--no-install]

Kinds are torchvision.models.list_models()'s modules: classification (the default, with
segmentation and video), segmentation, video, detection, optical_flow. Each model runs at batch
1 on its kind's input size (video clips of 16 frames of 112 x 112, 224 x 224 for s3d and MViT;
images of 224 x 224, 299 x 299 for inception_v3) with the tolerances of the models tests
(error relative to the output's largest magnitude, batch-norm statistics randomised). A
model's working directory is removed after it passes. Exits 1 when a model fails.

PyTorch must compute on OpenBLAS: on Debian's netlib reference BLAS the large transformers'
exports take longer than the timeout. The sweep installs libopenblas0-pthread when it is
missing (as the benchmarks do; --no-install only warns).
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench"))
from bench_common import ensure_openblas  # noqa: E402  (the benchmarks' OpenBLAS check)

DEFAULT_KINDS = ("classification", "segmentation", "video")
INPUT_SHAPES = {"inception_v3": "3,299,299", "s3d": "3,16,224,224", "mvit_v1_b": "3,16,224,224",
                "mvit_v2_s": "3,16,224,224"}
KIND_SHAPES = {"video": "3,16,112,112"}


def builders(kinds):
    import torchvision.models as models
    from torchvision.models import list_models
    modules = {"classification": models, "segmentation": models.segmentation,
               "video": models.video, "detection": models.detection,
               "optical_flow": models.optical_flow}
    out = []
    for kind in kinds:
        if kind not in modules:
            sys.exit("zoo_sweep.py: unknown kind '%s' (one of %s)" % (kind, ", ".join(modules)))
        out += [(kind, name) for name in list_models(module=modules[kind])]
    return out


def last_error(log):
    """The line that says why a run failed: the last 'error' line, else the last line."""
    lines = [line for line in log.splitlines() if line.strip()]
    for line in reversed(lines):
        if "error" in line.lower() or "differ" in line or "left" in line:
            return line.strip()
    return lines[-1].strip() if lines else "(no output)"


def run_one(args, kind, name):
    work = os.path.join(args.work, name)
    command = [sys.executable, os.path.join(args.source_dir, "tests", "models", "model_test.py"),
               "--rewrite", args.rewrite, "--source-dir", args.source_dir, "--work", work,
               "--rules", "rules/std.rules", "--scaled-atol", "1e-5", "--expect-gone="]
    shape = INPUT_SHAPES.get(name, KIND_SHAPES.get(kind))
    if shape:
        command += ["--input-shape", shape]
    command.append("torchvision:" + name)
    start = time.monotonic()
    # A session of its own, so that a timeout ends model_test.py's children (the export) too.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        log = process.communicate(timeout=args.timeout)[0]
        status = "pass" if process.returncode == 0 else "fail"
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        status, log = "timeout", process.communicate()[0]
    seconds = time.monotonic() - start
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(args.work, name + ".log"), "w") as f:
        f.write(log)
    if status == "pass":
        shutil.rmtree(work, ignore_errors=True)
    why = "" if status == "pass" else ("timed out after %d s" % args.timeout
                                       if status == "timeout" else last_error(log))
    print("%-8s %-34s %6.0f s  %s" % (status.upper(), kind + ":" + name, seconds, why),
          flush=True)
    return {"kind": kind, "model": name, "status": status, "seconds": round(seconds, 1),
            "why": why}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rewrite", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--kinds", default=",".join(DEFAULT_KINDS))
    parser.add_argument("--models", default="", help="only these builders (comma-separated)")
    parser.add_argument("--skip", default="", help="not these builders (comma-separated)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per model")
    parser.add_argument("--json", help="write every model's result here")
    parser.add_argument("--no-install", action="store_true",
                        help="do not apt-get install libopenblas0-pthread")
    args = parser.parse_args()
    args.rewrite = os.path.abspath(args.rewrite)
    args.source_dir = os.path.abspath(args.source_dir)
    os.makedirs(args.work, exist_ok=True)

    chosen = builders([k for k in args.kinds.split(",") if k])
    only = {m for m in args.models.split(",") if m}
    skip = {m for m in args.skip.split(",") if m}
    chosen = [(k, m) for k, m in chosen if (not only or m in only) and m not in skip]
    if only - {m for _, m in chosen}:
        sys.exit("zoo_sweep.py: not a builder of %s: %s"
                 % (args.kinds, ", ".join(sorted(only - {m for _, m in chosen}))))
    ensure_openblas(not args.no_install, slow="the large transformers' exports time out")
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda km: run_one(args, *km), chosen))

    passed = [r for r in results if r["status"] == "pass"]
    print("\n%d of %d builders pass" % (len(passed), len(results)))
    for r in results:
        if r["status"] != "pass":
            print("  %s %s: %s" % (r["status"], r["model"], r["why"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if len(passed) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
