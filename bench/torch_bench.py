#!/usr/bin/python3
"""Times one model in PyTorch, eager or torch.jit.freeze + torch.jit.optimize_for_inference,
and prints one JSON object (p50_ms, p90_ms, throughput_per_s, peak_rss_mb, torch version).
bench/runtime_bench.py and bench/transformer_bench.py run it in a fresh process per
measurement, so peak RSS belongs to one mode only.

    bench/torch_bench.py resnet18 --mode jit --batch 8 --threads 2 --iters 20
    bench/torch_bench.py bench/transformer_models.py:make_gpt2_small --mode eager --batch 8

The model is a torchvision name (resnet18, or torchvision:resnet18) or FILE.py:FACTORY as
tools/export_fx.py takes it, built as the exporter builds it, so that both run the same
weights: torch.manual_seed(--seed) first; torchvision models get weights=None and
standard-normal inputs of (batch, 3, 224, 224) (video: 3, 16, 112, 112) from their own generator
seeded --seed + 1; a
factory returns a module (its inputs then come from its `input_shapes` attribute the same way)
or (module, example_inputs), and is called with BENCH_BATCH=--batch in its environment (the
convention of bench/transformer_models.py; inputs of another batch are an error). The model
runs in eval mode. jit mode scripts torchvision models (traces them if scripting fails) and
traces factories' modules on their inputs. Timed runs are under torch.inference_mode() (no
autograd bookkeeping), each a whole forward pass.
"""
import argparse
import importlib.util
import inspect
import json
import os
import resource
import statistics
import sys
import time

import torch


def percentile(times, p):
    times = sorted(times)
    return times[min(len(times) - 1, round(p * (len(times) - 1)))]


def example_inputs(shapes, batch, seed):
    """As tools/export/models.py makes them: standard-normal, from their own seeded generator."""
    generator = torch.Generator().manual_seed(seed + 1)
    return tuple(torch.randn((batch,) + tuple(s), generator=generator) for s in shapes)


def build(spec, batch, seed):
    """(module, inputs, from_torchvision) the way tools/export/models.py builds a spec. The
    exporter package is not imported: its modules add about 37 MB to this process's peak RSS,
    which is PyTorch's figure in the comparison."""
    where, name = spec.rsplit(":", 1) if ":" in spec else ("torchvision", spec)
    torch.manual_seed(seed)
    if where == "torchvision":
        import torchvision.models
        if name not in torchvision.models.list_models():
            sys.exit(f"torch_bench: torchvision.models.list_models() has no model '{name}'")
        builder = torchvision.models.get_model_builder(name)
        kwargs = {"weights": None}
        if "weights_backbone" in inspect.signature(builder).parameters:
            kwargs["weights_backbone"] = None  # nothing is downloaded
        # The input shape of the builder's kind, as tools/export/models.py gives it.
        kind = builder.__module__.split(".")[2] if builder.__module__.count(".") > 2 else ""
        shape = (3, 16, 112, 112) if kind == "video" else (3, 224, 224)
        return builder(**kwargs), example_inputs([shape], batch, seed), True
    if not where.endswith(".py") or not os.path.isfile(where):
        sys.exit(f"torch_bench: '{spec}' is neither a torchvision name nor FILE.py:FACTORY")
    os.environ["BENCH_BATCH"] = str(batch)
    module_name = os.path.splitext(os.path.basename(where))[0]
    loader = importlib.util.spec_from_file_location(module_name, where)
    module = importlib.util.module_from_spec(loader)
    sys.modules[module_name] = module
    loader.loader.exec_module(module)
    factory = getattr(module, name, None)
    if factory is None or not callable(factory):
        sys.exit(f"torch_bench: '{where}' has no callable '{name}'")
    result = factory()
    if isinstance(result, (tuple, list)) and len(result) == 2 and isinstance(result[0], torch.nn.Module):
        model, inputs = result
        inputs = (inputs,) if isinstance(inputs, torch.Tensor) else tuple(inputs)
    else:
        model, shapes = result, getattr(result, "input_shapes", None)
        if not isinstance(model, torch.nn.Module) or shapes is None:
            sys.exit(f"torch_bench: {spec}() must return a module with input_shapes or (module, inputs)")
        inputs = example_inputs(shapes, batch, seed)
    if inputs and inputs[0].dim() and inputs[0].shape[0] != batch:
        sys.exit(f"torch_bench: {spec}() returned inputs of batch {inputs[0].shape[0]}, not {batch}; "
                 "it should read BENCH_BATCH")
    return model, inputs, False


def to_jit(model, inputs, from_torchvision):
    with torch.no_grad():
        traced = None
        if from_torchvision:
            try:
                traced = torch.jit.script(model)
            except Exception as e:  # noqa: BLE001 - any scripting failure falls back to tracing
                print(f"torch_bench: torch.jit.script failed ({type(e).__name__}); tracing instead",
                      file=sys.stderr)
        if traced is None:
            traced = torch.jit.trace(model, inputs)
        return torch.jit.optimize_for_inference(torch.jit.freeze(traced))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="a torchvision.models constructor (resnet18, torchvision:resnet18) "
                                  "or FILE.py:FACTORY")
    ap.add_argument("--mode", choices=["eager", "jit"], required=True)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0, help="as tools/export_fx.py's --seed; default 0")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    model, inputs, from_torchvision = build(args.model, args.batch, args.seed)
    model = model.eval()
    if args.mode == "jit":
        model = to_jit(model, inputs, from_torchvision)
    with torch.inference_mode():
        # jit's profiling executor specialises during the first runs; the warm-up covers them.
        for _ in range(max(args.warmup, 3 if args.mode == "jit" else 0)):
            model(*inputs)
        times = []
        for _ in range(args.iters):
            start = time.perf_counter()
            model(*inputs)
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
