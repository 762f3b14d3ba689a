#!/usr/bin/env python3
"""Writes examples/models/tiny_cnn: a small ResNet-style CNN (conv->batch_norm->relu blocks, a
residual add, max and adaptive pooling, dropout, linear) as model.json + model.safetensors.

Weights come from numpy with a fixed seed, so the files are reproducible without PyTorch.
Batch-norm statistics are non-trivial (mean != 0, var != 1) so that a wrong fold shows up in
the numbers. Usage: make_tiny_cnn.py [OUT_DIR]
"""
import json
import os
import struct
import sys

import numpy as np

rng = np.random.default_rng(20261123)
tensors = {}
nodes = []


def param(name, shape, scale=None, positive=False):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    scale = scale if scale is not None else 1.0 / np.sqrt(fan_in)
    value = rng.standard_normal(shape).astype(np.float32) * np.float32(scale)
    if positive:
        value = np.abs(value) + np.float32(0.5)
    tensors[name] = value
    node = name.replace(".", "_")
    nodes.append({"name": node, "op": "get_attr", "target": name})
    return node


def ref(name):
    return {"node": name}


def call(name, target, args, kwargs=None):
    node = {"name": name, "op": "call_function", "target": target, "args": args}
    if kwargs:
        node["kwargs"] = kwargs
    nodes.append(node)
    return name


def conv_bn(prefix, x, cin, cout, stride=1, relu=True):
    w = param(prefix + ".conv.weight", (cout, cin, 3, 3))
    y = call(prefix + "_conv", "conv2d", [ref(x), ref(w), None],
             {"stride": [stride, stride], "padding": [1, 1]})
    mean = param(prefix + ".bn.running_mean", (cout,), scale=0.1)
    var = param(prefix + ".bn.running_var", (cout,), scale=0.2, positive=True)
    gamma = param(prefix + ".bn.weight", (cout,), scale=0.2, positive=True)
    beta = param(prefix + ".bn.bias", (cout,), scale=0.1)
    y = call(prefix + "_bn", "batch_norm",
             [ref(y), ref(mean), ref(var), ref(gamma), ref(beta), False, 0.1, 1e-05])
    if relu:
        y = call(prefix + "_relu", "relu", [ref(y)])
    return y


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "examples", "models", "tiny_cnn")
    nodes.append({"name": "x", "op": "placeholder", "target": "x",
                  "meta": {"shape": ["N", 3, 32, 32], "dtype": "float32"}})
    y = conv_bn("stem", "x", 3, 16)
    y = call("stem_pool", "max_pool2d", [ref(y), [2, 2]])
    skip = y
    y = conv_bn("block1a", y, 16, 16)
    y = conv_bn("block1b", y, 16, 16, relu=False)
    y = call("block1_add", "add", [ref(y), ref(skip)])
    y = call("block1_relu", "relu", [ref(y)])
    y = conv_bn("down", y, 16, 32, stride=2)
    y = call("pool", "adaptive_avg_pool2d", [ref(y), [1, 1]])
    y = call("flatten", "flatten", [ref(y), 1])
    y = call("dropout", "dropout", [ref(y)], {"p": 0.2, "training": False})
    w = param("fc.weight", (10, 32))
    b = param("fc.bias", (10,), scale=0.1)
    y = call("fc", "linear", [ref(y), ref(w), ref(b)])
    nodes.append({"name": "output", "op": "output", "target": "output", "args": [[ref(y)]]})

    os.makedirs(out_dir, exist_ok=True)
    model = {"format": "graft.model", "version": 1, "weights": "model.safetensors",
             "metadata": {"source": "tools/examples/make_tiny_cnn.py", "seed": 20261123},
             "nodes": nodes}
    with open(os.path.join(out_dir, "model.json"), "w") as f:
        json.dump(model, f, indent=1)
        f.write("\n")
    write_safetensors(os.path.join(out_dir, "model.safetensors"), tensors)


def write_safetensors(path, named):
    header, offset, blobs = {}, 0, []
    for name in sorted(named):
        data = np.ascontiguousarray(named[name], dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(named[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


if __name__ == "__main__":
    main()
