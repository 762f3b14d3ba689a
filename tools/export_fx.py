#!/usr/bin/python3
"""Exports a PyTorch model to graft's format (model.json + model.safetensors).

    export_fx.py torchvision:resnet18 -o out/resnet18 --batch 1 --reference
    export_fx.py mypkg.models:make_net -o out/net --input-shape 3,32,32
    export_fx.py path/to/model.py:make_model -o out/model --dynamic-dim T=tokens:1

The model is built after torch.manual_seed(--seed) and exported in eval mode; torchvision
models get weights=None. A factory may return (module, example_inputs). The model is captured
with torch.fx, or with make_fx at the ATen level when torch.fx fails (--capture chooses).
--reference also writes the inputs (input_<name>.npy) and PyTorch's eager outputs
(output_<i>.npy) with reference.json, for `rewrite run --input NAME=FILE.npy -o out.npz` and
tests/models/compare.py.

From Python: `from export_fx import export` (see tools/export/__init__.py). docs/exporter.md
has the details. Exit codes: 0 exported, 1 the model cannot be exported (the reason is
printed; nothing is written), 2 usage error, 3 internal error.
"""
import argparse
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from export import CAPTURES, Converted, ExportError, convert, export  # noqa: E402,F401
from export import models  # noqa: E402
from export.symbols import parse_dynamic_dim  # noqa: E402

__all__ = ["export", "convert", "Converted", "ExportError"]


def _shape(text):
    try:
        dims = tuple(int(d) for d in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("expected comma-separated ints such as 3,224,224, "
                                         "got '%s'" % text)
    if any(d <= 0 for d in dims):
        raise argparse.ArgumentTypeError("dims must be positive, got '%s'" % text)
    return dims


def _dynamic_dim(text):
    try:
        return parse_dynamic_dim(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="export_fx.py", description="Export a PyTorch model to graft's format.")
    parser.add_argument("model", help="torchvision:NAME, MODULE:FACTORY or FILE.py:FACTORY "
                                      "(FACTORY returns a module or (module, example_inputs))")
    parser.add_argument("-o", "--output", required=True, help="output directory")
    parser.add_argument("--capture", choices=CAPTURES, default="auto",
                        help="fx: torch.fx.symbolic_trace; aten: make_fx at the ATen level; "
                             "auto (default): fx, and aten when fx fails")
    parser.add_argument("--batch", type=int, default=None,
                        help="batch size of the example (and reference) inputs; default 1")
    parser.add_argument("--input-shape", type=_shape, action="append", metavar="D,D,...",
                        help="shape of an input without the batch dim (repeat for several "
                             "inputs); default 3,224,224 for torchvision, else the module's "
                             "input_shapes attribute")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the model's initialisation and of the inputs; default 0")
    parser.add_argument("--reference", action="store_true",
                        help="also write the input and PyTorch's eager outputs as .npy files")
    parser.add_argument("--static-batch", action="store_true",
                        help="give the inputs a fixed batch dim instead of the symbol N")
    parser.add_argument("--dynamic-dim", type=_dynamic_dim, action="append", default=[],
                        metavar="NAME=INPUT:DIM",
                        help="make dim DIM of input INPUT (an index or forward()'s parameter "
                             "name) the symbol NAME; repeatable, e.g. T=1:1")
    parser.add_argument("--randomize-norm-stats", action="store_true",
                        help="give every BatchNorm seeded random statistics, so that a wrong "
                             "batch-norm fold shows in the numbers")
    parser.add_argument("--randomize-zero-weights", action="store_true",
                        help="draw every all-zero parameter of 2 or more dims (ViT's head) "
                             "from N(0, 0.02^2), so that the outputs depend on the whole model")
    args = parser.parse_args(argv)
    if args.batch is not None and args.batch <= 0:
        parser.error("--batch must be positive")

    try:
        built = models.build(args.model, args.seed)
        module, inputs = built.module, built.inputs
        if inputs is not None and (args.batch is not None or args.input_shape):
            raise ExportError("%s returns its example inputs; --batch and --input-shape do "
                              "not apply (change the inputs the factory returns)" % args.model)
        if inputs is None:
            shapes = args.input_shape or built.shapes
            if not shapes:
                raise ExportError("%s has no input_shapes attribute; give --input-shape or "
                                  "return (module, example_inputs) from the factory"
                                  % args.model)
            inputs = models.example_inputs(shapes, args.batch or 1, args.seed)
        if args.randomize_norm_stats:
            models.randomize_norm_stats(module, args.seed)
        if args.randomize_zero_weights:
            drawn = models.randomize_zero_weights(module, args.seed)
            if drawn:
                print("export_fx.py: drew the all-zero %s at random" % ", ".join(drawn))
        batch = int(inputs[0].shape[0]) if inputs and inputs[0].dim() else 0
        converted = export(module, inputs, args.output, reference=args.reference,
                           dynamic_batch=not args.static_batch, dynamic_dims=args.dynamic_dim,
                           capture=args.capture,
                           metadata={"source": args.model, "seed": args.seed,
                                     "example_batch": batch})
    except ExportError as e:
        print("export_fx.py: error: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception:  # noqa: BLE001 - a bug in the exporter: show where
        traceback.print_exc()
        print("export_fx.py: internal error: this is a bug in the exporter; please report it "
              "with the command line", file=sys.stderr)
        return 3
    counts = sum(1 for n in converted.model["nodes"] if n["op"] == "call_function")
    symbols = converted.model["metadata"].get("symbols", {})
    print("exported %s to %s: %d ops, %d tensors, %s%s" % (
        args.model, args.output, counts, len(converted.tensors),
        "batch N" if converted.dynamic else "static batch %d" % batch,
        "".join(", %s" % s for s in symbols if s != "N")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
