#!/usr/bin/python3
"""One conformance test: export a model with tools/export_fx.py (with PyTorch's reference
outputs), run it with `rewrite run` before and after the standard rules, and compare both runs
with PyTorch (compare.py).

    model_test.py --rewrite BIN --source-dir SRC --work DIR SPEC [--batch B] [--rules R]
                  [--rtol X] [--atol Y] [--scaled-atol S] [--input-shape D,D,...]
                  [--capture auto|fx|aten] [--dynamic-dim T=INPUT:DIM --run-at T=V ...]
                  [--expect-count OP=N ...]

SPEC is an export_fx.py model spec (torchvision:resnet18, FILE.py:FACTORY). Everything is
written below --work, which is recreated. The rules must remove every batch_norm and
dropout (--expect-gone), so that "after the rules" tests the rewritten graph; --expect-count
says how many of an op the rewritten graph must have (the attentions a model's spelling must
become). BatchNorm statistics are randomized (--randomize-norm-stats) so that a wrong conv-bn
fold changes the numbers, and all-zero weights (ViT's head) are drawn at random
(--randomize-zero-weights) so that the outputs depend on the whole model. With --dynamic-dim
the model is exported once with that symbolic dim, and each --run-at runs both graphs again
with the symbol at another size, against PyTorch on the same weights and the example inputs
cut or tiled to that size (resized_reference.py); N=B there resizes the symbolic batch.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import resized_reference  # noqa: E402


def run(command, what):
    print("+ " + " ".join(command), flush=True)
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(result.stdout)
    if result.returncode != 0:
        sys.exit("model_test.py: %s failed with exit code %d" % (what, result.returncode))
    return result.stdout


def op_counts(model_json):
    with open(model_json) as f:
        nodes = json.load(f)["nodes"]
    return Counter(n["target"] for n in nodes if n["op"] == "call_function")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rewrite", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--batch", default=None,
                        help="export_fx.py's --batch (not for factories returning inputs)")
    parser.add_argument("--capture", default="auto", help="export_fx.py's --capture")
    parser.add_argument("--rules", default="examples/rules/fuse.rules")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--scaled-atol", type=float, default=0.0,
                        help="atol as a fraction of the output's largest magnitude (compare.py)")
    parser.add_argument("--input-shape", action="append", default=[])
    parser.add_argument("--static-batch", action="store_true",
                        help="export_fx.py's --static-batch (models with int64 inputs whose "
                             "batch the ATen capture cannot keep symbolic)")
    parser.add_argument("--expect-gone", default="batch_norm,dropout",
                        help="ops the rules must remove (comma-separated; empty for none)")
    parser.add_argument("--expect-count", action="append", default=[],
                        help="OP=N: the rewritten graph has exactly N calls of OP (repeatable)")
    parser.add_argument("--dynamic-dim", action="append", default=[],
                        help="export_fx.py's --dynamic-dim NAME=INPUT:DIM")
    parser.add_argument("--run-at", action="append", default=[], type=resized_reference.parse_dims,
                        help="also run at NAME=SIZE[,NAME=SIZE] of --dynamic-dim symbols or "
                             "the batch N (repeatable)")
    parser.add_argument("spec")
    args = parser.parse_args()

    src = args.source_dir
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    model_dir = os.path.join(args.work, "model")
    export = [sys.executable, os.path.join(src, "tools", "export_fx.py"), args.spec,
              "-o", model_dir, "--reference", "--randomize-norm-stats",
              "--randomize-zero-weights",
              "--capture", args.capture]
    if args.batch is not None:
        export += ["--batch", args.batch]
    for shape in args.input_shape:
        export += ["--input-shape", shape]
    if args.static_batch:
        export.append("--static-batch")
    for dim in args.dynamic_dim:
        export += ["--dynamic-dim", dim]
    run(export, "export")
    model = os.path.join(model_dir, "model.json")
    run([args.rewrite, "print", model], "rewrite print")

    with open(os.path.join(model_dir, "reference.json")) as f:
        manifest = json.load(f)
    inputs = []
    for name, file in manifest["inputs"].items():
        inputs += ["--input", "%s=%s" % (name, os.path.join(model_dir, file))]

    rewritten = os.path.join(args.work, "rewritten", "model.json")
    os.makedirs(os.path.dirname(rewritten))
    run([args.rewrite, "--rules", os.path.join(src, args.rules), model, "-o", rewritten,
         "--stats"], "rewrite --rules")
    before, after = op_counts(model), op_counts(rewritten)
    print("ops before the rules: %s" % dict(sorted(before.items())))
    print("ops after the rules:  %s" % dict(sorted(after.items())))
    left = [op for op in filter(None, args.expect_gone.split(",")) if after[op]]
    if left:
        sys.exit("model_test.py: the rules left %s" % ", ".join("%d %s" % (after[op], op)
                                                               for op in left))
    for expected in args.expect_count:
        op, count = expected.split("=")
        if after[op] != int(count):
            sys.exit("model_test.py: the rules left %d %s, expected %s" % (after[op], op, count))

    # (label suffix, directory of the reference, --input arguments) per size
    sizes = [("", model_dir, inputs)]
    for dims in args.run_at:
        tag = ",".join("%s=%d" % kv for kv in sorted(dims.items()))
        ref_dir = os.path.join(args.work, "at_" + tag.replace(",", "_").replace("=", ""))
        files = resized_reference.write(src, args.spec, model_dir, args.dynamic_dim, dims,
                                        ref_dir)
        sizes.append((" at " + tag, ref_dir, [a for n, f in files.items()
                                              for a in ("--input", "%s=%s" % (n, f))]))
    ok = True
    for suffix, ref_dir, run_inputs in sizes:
        for label, path in (("before rules", model), ("after rules", rewritten)):
            label += suffix
            npz = os.path.join(args.work, label.split()[0] + suffix.replace(" at ", "_")
                               .replace("=", "").replace(",", "_") + ".npz")
            run([args.rewrite, "run", path] + run_inputs + ["-o", npz],
                "rewrite run (%s)" % label)
            passed, lines = compare.compare(ref_dir, npz, args.rtol, args.atol, label,
                                            args.scaled_atol)
            print("\n".join(lines))
            ok = ok and passed
    if not ok:
        sys.exit("model_test.py: %s: graft's outputs differ from PyTorch's" % args.spec)
    print("model_test.py: %s matches PyTorch before and after %s" % (args.spec, args.rules))


if __name__ == "__main__":
    main()
