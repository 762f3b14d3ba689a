#!/usr/bin/python3
"""graft's runtime on transformers against PyTorch 1.13 eager and torch.jit.trace +
torch.jit.freeze + torch.jit.optimize_for_inference, side by side in one run (issue 28).

The models are bench/transformer_models.py's: ViT-B/16, a BERT-base-shaped
nn.TransformerEncoder (PyTorch's eager run takes its fused fast path) and a hand-written
GPT-2-small-shaped decoder, sequence 128. For each model x batch x threads:
  1. the model is exported with tools/export_fx.py at a static batch (BENCH_BATCH=B
     --static-batch) and rewritten with rules/std.rules, both cached in
     BUILD/tmp/transformer-bench/<model>-b<B>/ and redone when the exporter, the models file, a
     rule file or `rewrite` is newer; bench/matmul_efficiency --flops-only counts its FLOPs
     (2 * MACs of every linear, matmul, conv and attention step);
  2. `rewrite bench fused.json --threads T --iters N --json`, bench/torch_bench.py --mode eager
     and --mode jit run one after another, each in its own process (peak RSS is per process),
     --rounds times, interleaved; a figure is the median over the rounds of each process's
     median latency;
  3. `rewrite bench --profile` once more gives graft's time per op (summed over the op's
     steps), and bench/matmul_efficiency compares every linear / matmul step's time inside
     graft's run with a standalone oneDNN primitive of the same shapes run in the model's
     order (the bar) and cache-hot (unless --no-matmul).
The host's FMA peak at each thread count is measured first (bench/fma_peak); "peak" is the
share of it the whole model reaches in graft and in eager: model FLOPs / p50 / peak (1.3x
eager needs graft at 1.3 times eager's share).

Every process gets OMP_NUM_THREADS=T and OPENBLAS_NUM_THREADS=T besides its own thread
setting; PyTorch runs under both OpenMP wait policies and keeps the faster
(bench_common.measure). A row whose export, rewrite or run fails is reported as failed and the others go on;
the script then exits with status 1 (after writing --json). Missed bars are reported, not an
error.

    bench/transformer_bench.py --build build --quick
    bench/transformer_bench.py --build build --iters 10 --rounds 3 --json transformer.json
"""
import os
import statistics
import sys

from bench_common import (PYTHON, ROOT, CommandFailed, ensure_openblas, exporter_sources, last_json,
                          log, matrix_parser, measure, op_counts, rule_files, run, stale, summarise,
                          thread_env, write_json)

MODELS_FILE = os.path.join(ROOT, "bench", "transformer_models.py")
MODELS = ["vit_b_16", "bert_base", "gpt2_small"]
NAMES = {"vit_b_16": "ViT-B/16", "bert_base": "BERT-base", "gpt2_small": "GPT-2-small"}
BARS = {"speedup_vs_eager": 1.3, "speedup_vs_jit": 1.0, "matmul_ratio": 0.9}
TOOLS = ["rewrite", "matmul_efficiency", "fma_peak"]
TOP_OPS = 5  # ops listed per row in the profile summary


def spec(model):
    return f"{MODELS_FILE}:make_{model}"


def prepare(model, batch, build, cache):
    """Exports `model` at `batch` (cached), rewrites it with rules/std.rules and returns the
    rewritten model.json. Raises CommandFailed."""
    d = os.path.join(cache, f"{model}-b{batch}")
    exported = os.path.join(d, "model.json")
    fused = os.path.join(d, "fused.json")
    rewrite = os.path.join(build, "bin", "rewrite")
    if stale(exported, exporter_sources() + [MODELS_FILE]):
        log(f"exporting {model} at batch {batch}")
        run([PYTHON, os.path.join(ROOT, "tools/export_fx.py"), spec(model), "-o", d, "--static-batch"],
            env=dict(os.environ, BENCH_BATCH=str(batch)))
    if stale(fused, rule_files() + [exported, rewrite]):
        log(f"rewriting {model} at batch {batch} with rules/std.rules")
        run([rewrite, "--rules", os.path.join(ROOT, "rules", "std.rules"), exported, "-o", fused])
    return fused


def fma_peaks(build, threads):
    """GFLOP/s of bench/fma_peak at each thread count."""
    return {t: measure([os.path.join(build, "bin", "fma_peak"), "--threads", str(t), "--json"], t)["gflops"]
            for t in threads}


def profile(rewrite, fused, threads, iters):
    """graft's time per op from `rewrite bench --profile`: {op: {"ms", "share", "steps"}},
    the largest first, and the profiled run's p50."""
    out = run([rewrite, "bench", fused, "--threads", str(threads), "--iters", str(iters), "--warmup", "1",
               "--profile"], env=thread_env(threads))
    by_op, in_table, p50 = {}, False, None
    for line in out.splitlines():
        fields = line.split()
        if line.startswith("latency"):
            p50 = float(fields[2])
        elif fields[:3] == ["ms/run", "%", "node"]:
            in_table = True
        elif in_table and len(fields) >= 4:
            entry = by_op.setdefault(fields[3], {"ms": 0.0, "steps": 0})
            entry["ms"] += float(fields[0])
            entry["steps"] += 1
    total = sum(e["ms"] for e in by_op.values()) or 1.0
    for e in by_op.values():
        e["share"] = e["ms"] / total
    return dict(sorted(by_op.items(), key=lambda kv: -kv[1]["ms"])), p50


def measure_row(args, tools, fused, model, batch, threads, flops, peak):
    common = ["--threads", str(threads), "--iters", str(args.iters), "--warmup", str(args.warmup)]
    torch_common = [spec(model), "--batch", str(batch), *common]
    graft_runs, eager_runs, jit_runs = [], [], []
    for _ in range(args.rounds):
        graft_runs.append(measure([tools["rewrite"], "bench", fused, *common, "--json"], threads))
        eager_runs.append(measure([PYTHON, tools["torch_bench"], *torch_common, "--mode", "eager"], threads))
        jit_runs.append(measure([PYTHON, tools["torch_bench"], *torch_common, "--mode", "jit"], threads))
    row = {"graft": summarise(graft_runs), "eager": summarise(eager_runs), "jit": summarise(jit_runs),
           "model_flops": flops, "fma_peak_gflops": peak}
    g, e, j = row["graft"], row["eager"], row["jit"]
    row["graft_over_eager"] = g["p50_ms"] / e["p50_ms"]
    row["graft_over_jit"] = g["p50_ms"] / j["p50_ms"]
    for side in ("graft", "eager", "jit"):
        row[side]["gflops"] = flops / row[side]["p50_ms"] / 1e6
        row[side]["share_of_peak"] = row[side]["gflops"] / peak
    row["bars"] = {
        "1.3x_faster_than_eager": e["p50_ms"] / g["p50_ms"] >= BARS["speedup_vs_eager"],
        "not_slower_than_jit": j["p50_ms"] / g["p50_ms"] >= BARS["speedup_vs_jit"],
        "rss_below_pytorch": g["peak_rss_mb"] < min(e["peak_rss_mb"], j["peak_rss_mb"]),
    }
    row["profile"], row["profile_p50_ms"] = profile(tools["rewrite"], fused, threads, max(3, args.iters // 2))
    if not args.no_matmul:
        mm = measure([tools["matmul_efficiency"], fused, "--threads", str(threads),
                      "--iters", str(max(args.iters, 5)), "--warmup", "2", "--json"], threads)
        row["matmul"] = mm
        row["bars"]["matmul_at_least_90%"] = mm["ratio_seq"] >= BARS["matmul_ratio"]
    return row


def row_line(row, with_matmul):
    g, e, j = row["graft"], row["eager"], row["jit"]
    loads = g["load1"] + e["load1"] + j["load1"]
    line = (f"{NAMES[row['model']]:12s} {row['batch']:2d} {row['threads']:2d} {statistics.median(loads):5.2f}"
            f" {g['p50_ms']:9.2f} {e['p50_ms']:9.2f} {j['p50_ms']:9.2f}"
            f" {row['graft_over_eager']:11.2f} {row['graft_over_jit']:9.2f}"
            f"  {g['peak_rss_mb']:6.0f} /{e['peak_rss_mb']:6.0f} /{j['peak_rss_mb']:6.0f}"
            f" {100 * g['share_of_peak']:5.0f}% /{100 * e['share_of_peak']:3.0f}%")
    if with_matmul:
        line += f" {100 * row['matmul']['ratio_seq']:8.0f}% ({100 * row['matmul']['ratio']:3.0f}%)"
    failed = [k for k, ok in row["bars"].items() if not ok]
    return line + ("  MISSED: " + ", ".join(failed) if failed else "")


def profile_line(row):
    ops = list(row["profile"].items())
    top = ", ".join(f"{op} {100 * e['share']:.0f}% ({e['steps']})" for op, e in ops[:TOP_OPS])
    rest = sum(e["share"] for _, e in ops[TOP_OPS:])
    return (f"{NAMES[row['model']]:12s} {row['batch']:2d} {row['threads']:2d}  {top}"
            + (f", other {100 * rest:.0f}%" if rest > 0 else ""))


def main():
    ap = matrix_parser(__doc__, MODELS, "transformer-bench",
                       build_help="CMake build tree with bin/rewrite, bin/matmul_efficiency and bin/fma_peak",
                       no_build_help="do not build rewrite, matmul_efficiency, fma_peak",
                       quick_help="smoke run: every model, batch 1, 1 thread, 5 iterations, 1 round",
                       iters=10)
    ap.add_argument("--no-matmul", action="store_true", help="skip bench/matmul_efficiency")
    args = ap.parse_args()
    if args.quick:
        args.batches, args.threads, args.iters, args.rounds = [1], [1], 5, 1

    build = os.path.abspath(args.build)
    cache = os.path.abspath(args.cache or os.path.join(build, "tmp", "transformer-bench"))
    blas = ensure_openblas(not args.no_install)
    if not args.no_build:
        run(["cmake", "--build", build, "--target", *TOOLS])
    tools = {t: os.path.join(build, "bin", t) for t in TOOLS}
    tools["torch_bench"] = os.path.join(ROOT, "bench", "torch_bench.py")
    peaks = fma_peaks(build, args.threads)
    log("FMA peak: " + ", ".join(f"{t} threads {p:.1f} GFLOP/s" for t, p in peaks.items()))

    meta = {"openblas": blas, "iters": args.iters, "warmup": args.warmup, "rounds": args.rounds,
            "fma_peak_gflops": peaks}
    rows = []
    print(f"{'model':12s} {'B':>2s} {'T':>2s} {'load':>5s} {'graft ms':>9s} {'eager ms':>9s} {'jit ms':>9s}"
          f" {'graft/eager':>11s} {'graft/jit':>9s}  {'RSS MB graft/eager/jit':>22s} {'peak g/e':>11s}"
          + ("" if args.no_matmul else f" {'matmul seq (hot)':>16s}"), flush=True)
    for model in args.models:
        for batch in args.batches:
            try:
                fused = prepare(model, batch, build, cache)
                flops = last_json(run([tools["matmul_efficiency"], fused, "--flops-only"]))["model_flops"]
            except CommandFailed as e:
                fused, failure = None, f"export/rewrite failed: {e.last_line()}"
            for threads in args.threads:
                row = {"model": model, "batch": batch, "threads": threads}
                try:
                    if fused is None:
                        raise RuntimeError(failure)
                    row["graft_ops"] = op_counts(fused)
                    row.update(measure_row(args, tools, fused, model, batch, threads, flops, peaks[threads]))
                    print(row_line(row, not args.no_matmul), flush=True)
                except (CommandFailed, RuntimeError) as e:
                    row["failed"] = e.last_line() if isinstance(e, CommandFailed) else str(e)
                    print(f"{NAMES[model]:12s} {batch:2d} {threads:2d}  FAILED: {row['failed']}", flush=True)
                rows.append(row)
                if args.json:  # after every row, so that a run cut short keeps what it measured
                    write_json(args.json, meta, rows)
    print("graft/eager and graft/jit are latency ratios (below 1: graft faster); the bars need "
          f"graft/eager <= {1 / BARS['speedup_vs_eager']:.3f}, graft/jit <= 1 and graft's peak RSS below "
          "both PyTorch modes. load: median 1-min load average before the measurements. peak: model "
          "FLOPs / p50 / the host's FMA peak, for graft and for eager (1.3x eager needs graft at 1.3 times eager's share; "
          + ", ".join(f"{p:.0f} GFLOP/s at {t} threads" for t, p in peaks.items()) + ")."
          + ("" if args.no_matmul else " matmul: standalone oneDNN time / graft's for the linear and matmul "
             "steps, run in the model's order (the bar, >= 90%) and, in parentheses, rerun cache-hot."))
    measured = [r for r in rows if "profile" in r]
    if measured:
        print("\ngraft's time by op (share of the profiled step time, steps):")
        for row in measured:
            print(profile_line(row))
    return 1 if any("failed" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
