#!/usr/bin/python3
"""Times one torchvision model in PyTorch, eager or torch.jit.freeze +
torch.jit.optimize_for_inference, and prints one JSON object (p50_ms, p90_ms,
throughput_per_s, peak_rss_mb, torch version). bench/runtime_bench.py runs it in a fresh
process per measurement, so peak RSS belongs to one mode only.

    bench/torch_bench.py resnet18 --mode jit --batch 8 --threads 2 --iters 20

The model is torchvision's with weights=None and torch.manual_seed(0), the same
initialisation tools/export_fx.py exports, in eval mode; the input is torch.randn. Timed
runs are under torch.inference_mode() (no autograd bookkeeping), each a whole forward pass.
"""
import argparse
import json
import os
import resource
import statistics
import time

import torch
import torchvision


def percentile(times, p):
    times = sorted(times)
    return times[min(len(times) - 1, round(p * (len(times) - 1)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="a torchvision.models constructor: resnet18, resnet50, mobilenet_v2")
    ap.add_argument("--mode", choices=["eager", "jit"], required=True)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = getattr(torchvision.models, args.model)(weights=None).eval()
    x = torch.randn(args.batch, 3, 224, 224)
    if args.mode == "jit":
        with torch.no_grad():
            model = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(model)))
    with torch.inference_mode():
        # jit's profiling executor specialises during the first runs; the warm-up covers them.
        for _ in range(max(args.warmup, 3 if args.mode == "jit" else 0)):
            model(x)
        times = []
        for _ in range(args.iters):
            start = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - start) * 1000)
    p50 = statistics.median(times)
    print(json.dumps({
        "model": args.model, "mode": args.mode, "batch": args.batch,
        "threads": torch.get_num_threads(), "iters": args.iters,
        "p50_ms": p50, "p90_ms": percentile(times, 0.9),
        "throughput_per_s": args.batch * 1000 / p50,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,  # KiB on Linux
        "torch": torch.__version__, "mkldnn": torch.backends.mkldnn.is_available(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
    }))


if __name__ == "__main__":
    main()
