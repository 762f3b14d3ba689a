"""PyTorch's reference at other sizes of a model's symbolic dims: for a model exported once
with `--dynamic-dim T=INPUT:DIM` (or its symbolic batch N), the example inputs cut or tiled
along T's dims (N's: the leading dims of the first input's size) to another length, and the
eager outputs of the same module (the same factory, seed, batch-norm statistics and drawn
zero weights as export_fx.py's) on them, written as export_fx.py's reference files so that
compare.py reads them.
"""
import json
import os
import sys

import numpy as np
import torch


def parse_dims(text):
    """'T=5' or 'T=5,S=3' as {'T': 5, 'S': 3}; ValueError if malformed."""
    dims = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        if not sep or not name:
            raise ValueError("expected NAME=VALUE[,NAME=VALUE], got '%s'" % text)
        dims[name] = int(value)
    return dims


def _resized(x, dim, size):
    """x with dim `dim` cut to `size`, or tiled to it (so token ids stay valid)."""
    if size <= x.shape[dim]:
        return x.narrow(dim, 0, size)
    copies = -(-size // x.shape[dim])
    return torch.cat([x] * copies, dim=dim).narrow(dim, 0, size)


def write(source_dir, spec, model_dir, dynamic_dims, sizes, out_dir, seed=0):
    """Writes input_<name>.npy, output_<i>.npy and reference.json into out_dir for the inputs
    of model_dir's reference resized to `sizes` ({symbol: size}) along the dims of
    `dynamic_dims` (export_fx.py's NAME=INPUT:DIM texts) and, for N, the batch dims."""
    sys.path.insert(0, source_dir)
    from tools.export import flatten_outputs, models
    with open(os.path.join(model_dir, "reference.json")) as f:
        manifest = json.load(f)
    names = list(manifest["inputs"])
    inputs = [torch.from_numpy(np.load(os.path.join(model_dir, manifest["inputs"][n])))
              for n in names]
    for text in dynamic_dims:
        symbol, _, where = text.partition("=")
        which, _, dim = where.rpartition(":")
        index = int(which) if which.isdigit() else names.index(which)
        if symbol in sizes:
            inputs[index] = _resized(inputs[index], int(dim), sizes[symbol])
    if "N" in sizes:
        # The batch symbol: dim 0 of every input whose dim 0 is the first input's (as
        # tools/export/symbols.py's resolve names it).
        batch = int(inputs[0].shape[0])
        inputs = [_resized(x, 0, sizes["N"]) if x.dim() > 0 and int(x.shape[0]) == batch else x
                  for x in inputs]
    built = models.build(spec, seed)
    module = built.module
    models.randomize_norm_stats(module, seed)
    models.randomize_zero_weights(module, seed)
    module.eval()
    with torch.no_grad():
        eager = flatten_outputs(module(*inputs))
    os.makedirs(out_dir, exist_ok=True)
    resized = {"inputs": {}, "outputs": [], "torch": torch.__version__}
    for name, x in zip(names, inputs):
        resized["inputs"][name] = "input_%s.npy" % name
        np.save(os.path.join(out_dir, resized["inputs"][name]), x.numpy())
    for i, (ref, y) in enumerate(zip(manifest["outputs"], eager)):
        file = "output_%d.npy" % i
        np.save(os.path.join(out_dir, file), y.numpy())
        resized["outputs"].append({"node": ref["node"], "file": file, "shape": list(y.shape)})
    with open(os.path.join(out_dir, "reference.json"), "w") as f:
        json.dump(resized, f, indent=1)
    return {n: os.path.join(out_dir, resized["inputs"][n]) for n in names}
