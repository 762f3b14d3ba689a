#!/usr/bin/python3
"""graft's conv-bn rule against its peer, torch.fx.experimental.optimization.fuse, on ResNet-18:

    fx_fuse_peer_test.py --rewrite BIN --source-dir SRC --work DIR

1. builds resnet18 (seeded, random BatchNorm statistics) and exports it with reference data;
2. rewrites it with examples/rules/fuse.rules (graft's fuse_conv_bn);
3. fuses the same module with torch.fx's fuser and exports the fused GraphModule too, with
   its own eager outputs on the same input;
4. checks that both have no batch_norm left, the same number of convolutions as the original,
   exactly the same op counts overall, the same folded conv weights and biases (conv by conv,
   error below 1e-5 of the tensor's largest value), and that graft's rewritten model matches
   the fx-fused module's outputs and the original's (rtol 1e-4, atol 1e-4).
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402


def fail(message):
    sys.exit("fx_fuse_peer_test.py: FAIL: " + message)


def run(command):
    print("+ " + " ".join(command), flush=True)
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(result.stdout)
    if result.returncode != 0:
        fail("exit code %d" % result.returncode)


def graft_counts(model_json):
    with open(model_json) as f:
        nodes = json.load(f)["nodes"]
    return Counter(n["target"] for n in nodes if n["op"] == "call_function")


def read_safetensors(path):
    """{name: numpy array} of a safetensors file (F32 only, which is all graft writes here)."""
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    base = 8 + length
    result = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        result[name] = np.frombuffer(data[base + begin:base + end], "<f4").reshape(t["shape"])
    return result


def folded_convs(model_json):
    """(weight, bias) of each conv2d of a graft model, in graph order."""
    with open(model_json) as f:
        model = json.load(f)
    tensors = read_safetensors(os.path.join(os.path.dirname(model_json), model["weights"]))
    targets = {n["name"]: n["target"] for n in model["nodes"] if n["op"] == "get_attr"}
    result = []
    for n in model["nodes"]:
        if n["op"] == "call_function" and n["target"] == "conv2d":
            weight, bias = (n["args"] + [None])[1:3]
            result.append((tensors[targets[weight["node"]]],
                           None if bias is None else tensors[targets[bias["node"]]]))
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rewrite", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.source_dir, "tools"))
    import torch
    import torch.fx.experimental.optimization as fx_optimization
    from export import export, models

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    built = models.build("torchvision:resnet18", seed=0)
    module, shapes = built.module, built.shapes
    models.randomize_norm_stats(module, seed=0)
    module.eval()
    inputs = models.example_inputs(shapes, batch=1, seed=0)

    original_dir = os.path.join(args.work, "original")
    export(module, inputs, original_dir, reference=True)
    rewritten = os.path.join(args.work, "rewritten", "model.json")
    os.makedirs(os.path.dirname(rewritten))
    run([args.rewrite, "--rules", os.path.join(args.source_dir, "examples/rules/fuse.rules"),
         os.path.join(original_dir, "model.json"), "-o", rewritten, "--stats"])

    fused = fx_optimization.fuse(module)
    fx_modules = Counter(type(fused.get_submodule(n.target)).__name__
                         for n in fused.graph.nodes if n.op == "call_module")
    fused_dir = os.path.join(args.work, "fx_fused")
    export(fused, inputs, fused_dir, reference=True)

    original, ours, theirs = (graft_counts(os.path.join(original_dir, "model.json")),
                              graft_counts(rewritten),
                              graft_counts(os.path.join(fused_dir, "model.json")))
    print("original:            %s" % dict(sorted(original.items())))
    print("graft fuse_conv_bn:  %s" % dict(sorted(ours.items())))
    print("torch.fx fuse:       %s (fx modules: %s)" % (dict(sorted(theirs.items())),
                                                        dict(sorted(fx_modules.items()))))
    if ours["batch_norm"] or theirs["batch_norm"] or fx_modules["BatchNorm2d"]:
        fail("batch_norm left: graft %d, torch.fx %d" % (ours["batch_norm"],
                                                         theirs["batch_norm"]))
    if not (ours["conv2d"] == theirs["conv2d"] == fx_modules["Conv2d"] == original["conv2d"]):
        fail("conv counts differ: graft %d, torch.fx %d, original %d"
             % (ours["conv2d"], theirs["conv2d"], original["conv2d"]))
    if ours != theirs:
        fail("op counts differ: graft %s, torch.fx %s" % (dict(ours), dict(theirs)))

    # The folded weights themselves, conv by conv in graph order.
    import numpy as np
    fx_convs = [fused.get_submodule(n.target) for n in fused.graph.nodes
                if n.op == "call_module" and isinstance(fused.get_submodule(n.target),
                                                        torch.nn.Conv2d)]
    worst = 0.0
    for i, ((w, b), conv) in enumerate(zip(folded_convs(rewritten), fx_convs)):
        for mine, theirs_t in ((w, conv.weight), (b, conv.bias)):
            theirs_np = theirs_t.detach().numpy()
            if mine is None or mine.shape != theirs_np.shape:
                fail("conv %d: folded tensor shapes differ" % i)
            worst = max(worst, float(np.abs(mine - theirs_np).max() /
                                     max(float(np.abs(theirs_np).max()), 1e-30)))
    print("folded conv weights and biases, graft vs torch.fx: max error / max |value| = %.3g"
          % worst)
    if worst > 1e-5:
        fail("graft's folded weights differ from torch.fx's")

    npz = os.path.join(args.work, "rewritten.npz")
    run([args.rewrite, "run", rewritten, "--input",
         "x=" + os.path.join(original_dir, "input_x.npy"), "-o", npz])
    ok = True
    for label, reference in (("vs torch.fx fuse", fused_dir), ("vs original", original_dir)):
        passed, lines = compare.compare(reference, npz, 1e-4, 1e-4, label)
        print("\n".join(lines))
        ok = ok and passed
    with torch.no_grad():
        gap = (fused(*inputs) - module(*inputs)).abs().max().item()
    print("torch.fx fuse vs unfused PyTorch: max abs err %.3g" % gap)
    if not ok:
        fail("graft's fused model differs from torch.fx's")
    print("fx_fuse_peer_test.py: ok: %d convs, no batch_norm, same ops and outputs as torch.fx"
          % ours["conv2d"])


if __name__ == "__main__":
    main()
