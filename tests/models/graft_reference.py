#!/usr/bin/python3
"""Runs an exported model.json with PyTorch: every graft op, those of the registry and those
tools/export/aten_ops.py PROPOSES, as the torch call its signature names. It checks the
exporter's rows for ops graft does not have yet against PyTorch's own results (the rows must
say what the model computes), and is no substitute for graft's runtime.

    graft_reference.py MODEL_DIR [--input NAME=FILE.npy ...] -o OUT.npz

Without --input, the inputs of MODEL_DIR/reference.json are used.
"""
import argparse
import json
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

_DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "I64": np.int64,
           "I32": np.int32, "I16": np.int16, "I8": np.int8, "U8": np.uint8, "BOOL": np.bool_}
_TORCH_DTYPES = {"float32": torch.float32, "int64": torch.int64, "bool": torch.bool,
                 "float64": torch.float64, "int32": torch.int32}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    base, tensors = 8 + length, {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        array = np.frombuffer(data[base + begin:base + end], _DTYPES[t["dtype"]])
        tensors[name] = torch.from_numpy(array.reshape(t["shape"]).copy())
    return tensors


def _stride(stride):
    return None if stride in ([], None) else stride


def _max_pool(fn):
    def op(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        return fn(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)
    return op


def _avg_pool(fn):
    def op(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
           divisor_override=None):
        return fn(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                  divisor_override)
    return op


def _dims(dim):
    return [] if dim is None else dim


def _reduce(fn):
    def op(input, dim=None, keepdim=False):
        return fn(input) if dim is None else fn(input, dim=dim, keepdim=keepdim)
    return op


def _slice(input, dim=0, start=None, end=None, step=1):
    index = [slice(None)] * input.dim()
    index[dim] = slice(start, end, step)
    return input[tuple(index)]


def _slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    # every argument by position: torch.slice_scatter's binding in 1.13 misreads an omitted step
    return torch.slice_scatter(input, src, dim, start, end, step)


OPS = {
    # graft's registry (docs/ops.md)
    "conv2d": F.conv2d, "linear": F.linear, "matmul": torch.matmul,
    "batch_norm": lambda input, running_mean, running_var, weight=None, bias=None,
    training=False, momentum=0.1, eps=1e-05: F.batch_norm(
        input, running_mean, running_var, weight, bias, False, momentum, eps),
    "layer_norm": lambda input, normalized_shape, weight=None, bias=None, eps=1e-05:
    F.layer_norm(input, normalized_shape, weight, bias, eps),
    "softmax": lambda input, dim: torch.softmax(input, dim),
    "log_softmax": lambda input, dim: torch.log_softmax(input, dim),
    "relu": torch.relu, "relu6": F.relu6, "hardtanh": F.hardtanh, "leaky_relu": F.leaky_relu,
    "elu": F.elu, "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid, "silu": F.silu,
    "sigmoid": torch.sigmoid, "gelu": F.gelu, "tanh": torch.tanh, "softplus": F.softplus,
    "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "exp": torch.exp, "log": torch.log,
    "neg": torch.neg, "reciprocal": torch.reciprocal, "abs": torch.abs, "erf": torch.erf,
    "clamp": torch.clamp,
    "add": lambda input, other, alpha=1: torch.add(torch.as_tensor(input), other, alpha=alpha),
    "sub": lambda input, other, alpha=1: torch.sub(torch.as_tensor(input), other, alpha=alpha),
    "mul": lambda input, other: torch.mul(torch.as_tensor(input), other),
    "div": lambda input, other, rounding_mode=None: torch.div(
        torch.as_tensor(input), other, rounding_mode=rounding_mode),
    "pow": lambda input, exponent: torch.pow(input, exponent),
    "maximum": torch.maximum, "minimum": torch.minimum,
    "max_pool2d": _max_pool(F.max_pool2d), "avg_pool2d": _avg_pool(F.avg_pool2d),
    "adaptive_avg_pool2d": F.adaptive_avg_pool2d, "adaptive_max_pool2d": F.adaptive_max_pool2d,
    "mean": _reduce(torch.mean), "sum": _reduce(torch.sum),
    "amax": lambda input, dim=(), keepdim=False: torch.amax(input, _dims(dim), keepdim),
    "flatten": torch.flatten, "reshape": torch.reshape, "permute": torch.permute,
    "transpose": torch.transpose, "unsqueeze": torch.unsqueeze,
    "squeeze": lambda input, dim=None: torch.squeeze(input) if dim is None else
    torch.squeeze(input, dim),
    "cat": torch.cat, "contiguous": lambda input: input, "clone": lambda input: input,
    "dropout": lambda input, p=0.5, training=True: input,
    # PROPOSED in tools/export/aten_ops.py
    "conv1d": F.conv1d, "conv3d": F.conv3d, "conv_transpose1d": F.conv_transpose1d,
    "conv_transpose2d": F.conv_transpose2d, "conv_transpose3d": F.conv_transpose3d,
    "max_pool3d": _max_pool(F.max_pool3d), "avg_pool3d": _avg_pool(F.avg_pool3d),
    "adaptive_avg_pool3d": F.adaptive_avg_pool3d, "group_norm": F.group_norm,
    "embedding": lambda input, weight: F.embedding(input, weight),
    "slice": _slice, "select": torch.select, "slice_scatter": _slice_scatter,
    "select_scatter": torch.select_scatter, "index_select": torch.index_select,
    "index": lambda input, indices: input[tuple(indices)], "gather": torch.gather,
    "expand": lambda input, size: input.expand(size),
    "expand_as": lambda input, other: input.expand_as(other),
    "unflatten": lambda input, dim, sizes: input.unflatten(dim, sizes),
    "roll": lambda input, shifts, dims=(): torch.roll(input, shifts, dims),
    "flip": torch.flip,
    "pad": lambda input, pad, mode="constant", value=None: F.pad(input, pad, mode, value),
    "interpolate": lambda input, size=None, scale_factor=None, mode="nearest",
    align_corners=None: F.interpolate(input, size, scale_factor, mode, align_corners),
    "where": lambda condition, input, other: torch.where(
        condition, torch.as_tensor(input), torch.as_tensor(other)),
    "masked_fill": torch.masked_fill,
    "eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt,
    "ge": torch.ge, "logical_not": torch.logical_not, "logical_and": torch.logical_and,
    "logical_or": torch.logical_or, "cumsum": torch.cumsum,
    "argmax": torch.argmax, "argmin": torch.argmin,
    "amin": lambda input, dim=(), keepdim=False: torch.amin(input, _dims(dim), keepdim),
    "to": lambda input, dtype: input.to(_TORCH_DTYPES[dtype]),
    "full_like": lambda input, fill_value, dtype=None: torch.full_like(
        input, fill_value, dtype=_TORCH_DTYPES[dtype] if dtype else None),
    "arange": lambda start, end, step=1, dtype=None: torch.arange(
        start, end, step, dtype=_TORCH_DTYPES[dtype] if dtype else None),
}


# model.json's floats that are not finite (docs/model-format.md, "Argument values").
_NONFINITE = ("inf", "-inf", "nan")


def run(model_dir, inputs):
    """The outputs of model_dir/model.json on `inputs` ({placeholder name: tensor})."""
    with open(os.path.join(model_dir, "model.json")) as f:
        model = json.load(f)
    tensors = read_safetensors(os.path.join(model_dir, model["weights"]))
    env = {}

    def value(v):
        if isinstance(v, dict):
            return env[v["node"]]
        if isinstance(v, list):
            return [value(x) for x in v]
        if v in _NONFINITE:  # no str attribute of graft's ops takes these values
            return float(v)
        return v
    for node in model["nodes"]:
        if node["op"] == "placeholder":
            env[node["name"]] = inputs[node["name"]]
        elif node["op"] == "get_attr":
            env[node["name"]] = tensors[node["target"]]
        elif node["op"] == "call_function":
            args = [value(a) for a in node.get("args", [])]
            kwargs = {k: value(v) for k, v in node.get("kwargs", {}).items()}
            with torch.no_grad():
                env[node["name"]] = OPS[node["target"]](*args, **kwargs)
        else:
            return [env[a["node"]] for a in node["args"][0]]
    raise ValueError("model.json has no output node")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    files = dict(i.split("=", 1) for i in args.input)
    if not files:
        with open(os.path.join(args.model_dir, "reference.json")) as f:
            files = {k: os.path.join(args.model_dir, v)
                     for k, v in json.load(f)["inputs"].items()}
    inputs = {k: torch.from_numpy(np.load(v)) for k, v in files.items()}
    outputs = run(args.model_dir, inputs)
    np.savez(args.output, **{"output_%d" % i: o.numpy() for i, o in enumerate(outputs)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
