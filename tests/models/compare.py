#!/usr/bin/python3
"""Compares graft's outputs (`rewrite run ... -o OUT.npz`) with PyTorch's reference outputs
(`export_fx.py --reference`: reference.json and output_<i>.npy in the model's directory).

    compare.py MODEL_DIR OUT.npz [--rtol 1e-4] [--atol 1e-4] [--scaled-atol S] [--label TEXT]

Outputs are paired in graph order (rewrites may rename the node that produces an output).
For each it prints the shape, the largest absolute error, the largest relative error (over
elements whose reference magnitude exceeds atol), the largest error relative to the output's
scale (max |graft - torch| / max |torch|), and how many elements fail numpy.allclose's test
|graft - torch| <= atol + rtol * |torch|. An output passes when no element fails and the
scaled error is at most --max-scaled-err (1e-4; this catches errors in outputs so small that
atol alone would accept anything). An output that PyTorch computes as all zeros fails too: it
would match whatever graft computed. --scaled-atol S raises atol to S * max |torch|, for models
whose outputs are large: float32 rounding grows with the activations' magnitude, so a logit
near zero among logits of 1e3 carries an absolute error of ~1e-3. Exits 1 if any output
fails or the shapes or counts differ.
"""
import argparse
import json
import os
import sys

import numpy as np


def compare(model_dir, npz_path, rtol, atol, label="", scaled_atol=0.0, max_scaled_err=1e-4):
    """Returns (ok, lines) after comparing every output; also used by the other test scripts."""
    with open(os.path.join(model_dir, "reference.json")) as f:
        manifest = json.load(f)
    expected = [(o["node"], np.load(os.path.join(model_dir, o["file"])))
                for o in manifest["outputs"]]
    with np.load(npz_path) as npz:
        actual = [(name, npz[name]) for name in npz.files]
    prefix = label + ": " if label else ""
    if len(actual) != len(expected):
        return False, ["%sgraft has %d outputs, PyTorch %d" % (prefix, len(actual),
                                                               len(expected))]
    ok, lines = True, []
    for (name, got), (ref_name, want) in zip(actual, expected):
        title = "%soutput %s" % (prefix, name if name == ref_name else "%s (torch: %s)"
                                 % (name, ref_name))
        if got.shape != want.shape:
            ok = False
            lines.append("%s: FAIL shape %s, PyTorch's is %s" % (title, list(got.shape),
                                                                 list(want.shape)))
            continue
        got64, want64 = got.astype(np.float64), want.astype(np.float64)
        diff = np.abs(got64 - want64)
        finite = bool(np.isfinite(got64).all())
        scale = float(np.abs(want64).max()) if want64.size else 0.0
        tol = max(atol, scaled_atol * scale)
        max_abs = float(diff.max()) if diff.size else 0.0
        big = np.abs(want64) > tol
        max_rel = float((diff[big] / np.abs(want64[big])).max()) if big.any() else 0.0
        scaled = max_abs / scale if scale > 0 else max_abs
        bad = int(np.count_nonzero(~(diff <= tol + rtol * np.abs(want64))))
        passed = finite and bad == 0 and scaled <= max_scaled_err and scale > 0
        ok = ok and passed
        lines.append("%s: %s shape %s, max |torch| %.3g, max abs err %.3g, max rel err %.3g, "
                     "scaled err %.3g, %d of %d elements outside rtol %g / atol %.3g%s%s"
                     % (title, "ok" if passed else "FAIL", list(got.shape), scale, max_abs,
                        max_rel, scaled, bad, diff.size, rtol, tol,
                        "" if finite else " (graft has NaN/inf)",
                        "" if scale > 0 else " (PyTorch's output is all zeros, which tests "
                        "nothing)"))
    return ok, lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir")
    parser.add_argument("npz")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--scaled-atol", type=float, default=0.0)
    parser.add_argument("--max-scaled-err", type=float, default=1e-4)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    ok, lines = compare(args.model_dir, args.npz, args.rtol, args.atol, args.label,
                        args.scaled_atol, args.max_scaled_err)
    print("\n".join(lines))
    if not ok:
        print("compare.py: graft's outputs differ from PyTorch's", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
