"""graft and torch.fx: export a PyTorch module to a graft Model, and turn a graft Model back
into a torch.fx.GraphModule that computes the same thing.

    model = graft.fx.export(net, (x,))                      # the exporter, as a library call
    fused = model.rewrite(graft.Rules.load("rules/std.rules")).model
    gm = graft.fx.to_graph_module(fused)                    # fused ops written back as torch ops
    torch.jit.script(gm); gm.state_dict()                   # go on in PyTorch

to_graph_module writes each graft op as the torch function of the same name and parameters
(graft's registry mirrors torch's signatures, docs/ops.md), the fused ops (conv2d_post,
linear_post) as the convolution or linear layer, activation, residual add and activation they
stand for, scaled_dot_product_attention as the matmuls, mask and softmax of its definition, and every constant as a parameter (floating point, except batch-norm statistics) or
buffer of the module under its own dotted name, so state_dict() has the folded weights. A
symbolic attribute (slice's end=T, a symbol in a reshape's sizes) becomes x.size(d) of an input x
whose dim d is that symbol, and one such as end=T-1 that sum of sizes.
"""
from __future__ import annotations

import operator
import os
import re
import tempfile
from typing import Any, Dict, Iterable, List, Optional, Sequence

import numpy as np

from graft import _graft
from graft.model import Model, PathLike

_HERE = os.path.dirname(os.path.abspath(__file__))

# Ops found in torch.nn.functional; the others are torch functions (torch.add, torch.reshape…).
_FUNCTIONAL = {
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "linear", "batch_norm", "layer_norm", "group_norm", "softmax", "log_softmax", "relu",
    "relu6", "hardtanh", "leaky_relu", "elu", "hardswish", "hardsigmoid", "silu", "gelu",
    "softplus", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d",
    "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "dropout", "interpolate", "pad",
    "embedding",
}
# Ops that are tensor methods in torch (x.expand(size)), with their attributes in order.
_METHODS = {"expand": ("size",), "expand_as": (), "unflatten": ("dim", "sizes")}
# Ops that are ATen ops without a torch function of the same name.
_ATEN = {"slice": "slice", "index": "index"}
# Attributes that name a dtype ("float32"): torch takes a torch.dtype.
_DTYPE_ATTRS = {"dtype"}
# Binary ops written as Python operators when their first operand is a number (torch.add(2, x)
# is refused by torch; 2 + x is not).
_OPERATORS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
              "div": operator.truediv, "pow": operator.pow}


def export(module: Any, example_inputs: Sequence[Any], out_dir: Optional[PathLike] = None, *,
           capture: str = "auto", dynamic_batch: bool = True, dynamic_dims: Iterable[str] = (),
           metadata: Optional[Dict[str, Any]] = None) -> Model:
    """Exports `module` as tools/export_fx.py does and loads the result. `out_dir`, if given,
    receives model.json and model.safetensors (without it they live only until loaded); `capture` is "fx",
    "aten" or "auto"; `dynamic_dims` are --dynamic-dim specs ("T=1:1"). Raises the exporter's
    ExportError when the model cannot be exported."""
    from graft.exporter import export as run_export, registry
    from graft.exporter.symbols import parse_dynamic_dim
    if not os.environ.get("GRAFT_OPS_MD"):
        registry.OPS_MD = os.path.join(_HERE, "ops.md")
    dims = [parse_dynamic_dim(d) for d in dynamic_dims]

    def run(out: str) -> Model:
        run_export(module, tuple(example_inputs), out, dynamic_batch=dynamic_batch,
                   dynamic_dims=dims, capture=capture, metadata=metadata, note=lambda text: None)
        return Model.load(os.path.join(out, "model.json"))

    if out_dir is not None:
        return run(os.fspath(out_dir))
    # The weights are memory-mapped when loaded, so the files may go once the model is loaded.
    with tempfile.TemporaryDirectory(prefix="graft-export-") as scratch:
        return run(os.path.join(scratch, "model"))


def _activation(graph, torch, value, name: str, alpha: float, beta: float):
    F = torch.nn.functional
    calls = {
        "relu": (F.relu, ()), "relu6": (F.relu6, ()), "leaky_relu": (F.leaky_relu, (alpha,)),
        "hardtanh": (F.hardtanh, (alpha, beta)), "clamp": (torch.clamp, (alpha, beta)),
        "elu": (F.elu, (alpha,)), "hardswish": (F.hardswish, ()),
        "hardsigmoid": (F.hardsigmoid, ()), "silu": (F.silu, ()), "sigmoid": (torch.sigmoid, ()),
        "tanh": (torch.tanh, ()), "gelu": (F.gelu, ()),
    }
    if name == "none":
        return value
    if name == "gelu_tanh":
        return graph.call_function(F.gelu, (value,), {"approximate": "tanh"})
    fn, extra = calls[name]
    return graph.call_function(fn, (value,) + tuple(extra))


def _fused(graph, torch, op: str, args: List[Any], kwargs: Dict[str, Any]):
    """conv2d_post / linear_post as the torch ops they stand for."""
    F = torch.nn.functional
    x, w, b, residual = (args + [None] * 4)[:4]
    if op == "conv2d_post":
        y = graph.call_function(F.conv2d, (x, w, b), {k: kwargs[k] for k in
                                                       ("stride", "padding", "dilation", "groups")})
    else:
        y = graph.call_function(F.linear, (x, w, b))
    y = _activation(graph, torch, y, kwargs["activation"], kwargs["alpha"], kwargs["beta"])
    if residual is not None:
        y = graph.call_function(operator.add, (y, residual))
    return _activation(graph, torch, y, kwargs["post_activation"], kwargs["post_alpha"],
                       kwargs["post_beta"])


def _attention(graph, torch, node, args: List[Any], kwargs: Dict[str, Any]):
    """scaled_dot_product_attention as the torch ops of torch 2.1's definition (torch 1.13 has
    no F.scaled_dot_product_attention): softmax(q @ k^T * scale + mask, -1) @ v, where a bool or
    causal mask gives a hidden key the score mask_fill."""
    q, k, v, mask = (args + [None] * 4)[:4]
    if kwargs.get("dropout_p"):
        raise _graft.GraftError(f"to_graph_module: node '{node.name}' has dropout_p > 0, which "
                                f"drops at random")
    q_shape, k_shape = node_shape_of(q), node_shape_of(k)
    scale = kwargs.get("scale")
    if scale is None:
        if not isinstance(q_shape[-1], int):
            raise _graft.GraftError(f"to_graph_module: node '{node.name}' needs the query's last "
                                    f"dim for its default scale, which is a symbol")
        scale = 1.0 / float(q_shape[-1]) ** 0.5
    scores = graph.call_function(torch.matmul, (q, graph.call_method("transpose", (k, -2, -1))))
    scores = graph.call_function(operator.mul, (scores, scale))
    if kwargs.get("is_causal"):
        rows, keys = q_shape[-2], k_shape[-2]
        if not isinstance(rows, int) or not isinstance(keys, int):
            raise _graft.GraftError(f"to_graph_module: node '{node.name}' is causal over a "
                                    f"symbolic length")
        visible = graph.call_method("tril", (graph.call_function(
            torch.ones, ((rows, keys),), {"dtype": torch.bool}),))
        mask = visible
    if mask is not None:
        if kwargs.get("is_causal") or mask.meta["graft_dtype"] == "bool":
            hidden = graph.call_function(torch.logical_not, (mask,))
            fill = kwargs.get("mask_fill", float("-inf"))
            scores = graph.call_method("masked_fill", (scores, hidden, fill))
        else:
            scores = graph.call_function(operator.add, (scores, mask))
    weights = graph.call_function(torch.nn.functional.softmax, (scores, -1))
    return graph.call_function(torch.matmul, (weights, v))


def _call(graph, torch, node, args: List[Any], kwargs: Dict[str, Any]):
    op = node.target
    if op == "arange":  # no operand
        if kwargs.get("dtype") is not None:
            kwargs["dtype"] = getattr(torch, kwargs["dtype"])
        return graph.call_function(torch.arange, (), kwargs)
    if op in ("conv2d_post", "linear_post"):
        return _fused(graph, torch, op, args, kwargs)
    if op == "scaled_dot_product_attention":
        return _attention(graph, torch, node, args, kwargs)
    if op == "contiguous":
        return graph.call_method("contiguous", (args[0],))
    if op == "cat":
        return graph.call_function(torch.cat, (list(args),), kwargs)
    if op in ("squeeze", "mean", "sum") and kwargs.get("dim") is None:
        kwargs = {k: v for k, v in kwargs.items() if k != "dim"}
        if op != "squeeze" and kwargs.pop("keepdim", False):
            rank = len(node_shape_of(args[0]))
            kwargs = {"dim": list(range(rank)), "keepdim": True}
    for name in _DTYPE_ATTRS & kwargs.keys():
        if kwargs[name] is not None:
            kwargs[name] = getattr(torch, kwargs[name])
    if op == "to":
        return graph.call_method("to", (args[0], kwargs["dtype"]))
    if op in _METHODS:
        operands = tuple(args[1:]) if op == "expand_as" else ()
        return graph.call_method(op, (args[0],) + operands +
                                 tuple(kwargs[a] for a in _METHODS[op]))
    if op in _ATEN:
        # The op packet, not one overload: TorchScript resolves torch.ops.aten.slice only.
        fn = getattr(torch.ops.aten, _ATEN[op])
        if op == "index":  # index(input, Tensor?[] indices): the rest is one list
            return graph.call_function(fn, (args[0], list(args[1:])))
        return graph.call_function(fn, (args[0],), kwargs)
    if op in _OPERATORS and not hasattr(args[0], "op"):  # a number first
        alpha = kwargs.get("alpha", 1)
        other = args[1] if alpha == 1 else graph.call_function(operator.mul, (args[1], alpha))
        return graph.call_function(_OPERATORS[op], (args[0], other))
    if op in _FUNCTIONAL:
        fn = getattr(torch.nn.functional, op)
    elif hasattr(torch, op):
        fn = getattr(torch, op)
    else:
        raise _graft.GraftError(f"to_graph_module: no torch function for graft op '{op}' "
                                f"(node '{node.name}')")
    # The first operand by position, the others by name: torch's signatures interleave
    # operands and attributes (layer_norm(input, normalized_shape, weight, bias, eps)).
    for name, value in zip(node.operand_names[1:], args[1:]):
        kwargs[name] = value
    return graph.call_function(fn, (args[0],), kwargs)


def node_shape_of(fx_node) -> List[Any]:
    return fx_node.meta["graft_shape"]


def _set_attr(root, dotted: str, value) -> None:
    """Sets root.<dotted> = value, creating the submodules on the way."""
    import torch
    *path, last = dotted.split(".")
    module = root
    for part in path:
        if not hasattr(module, part):
            module.add_module(part, torch.nn.Module())
        module = getattr(module, part)
    if isinstance(value, torch.nn.Parameter):
        module.register_parameter(last, value)
    else:
        module.register_buffer(last, value)


def to_graph_module(model: Model) -> Any:
    """A torch.fx.GraphModule computing what `model` computes (see the module docstring)."""
    import torch
    import torch.fx
    root = torch.nn.Module()
    graph = torch.fx.Graph()
    env: Dict[str, Any] = {}
    done = set()
    nodes = model.nodes
    # Batch-norm statistics are buffers, as in nn.BatchNorm2d: torch refuses gradients for them.
    statistics = {n.args[i] for n in nodes if n.op == "call_function"
                  and n.target == "batch_norm" for i in (1, 2) if isinstance(n.args[i], str)}
    by_name = {n.name: n for n in nodes}
    statistics = {by_name[s].target for s in statistics if by_name[s].op == "get_attr"}

    def value(a):
        return env[a] if isinstance(a, str) else a

    sizes: Dict[str, Any] = {}  # symbol -> (placeholder, dim) whose size it is

    def symbol_size(node, name, text):
        """x.size(d) for the symbol `text` in attribute `name`, from an input whose shape has
        it; for a sum of multiples of symbols ("2*T-1"), that sum of such sizes."""
        value, constant = None, 0
        for sign, coefficient, atom in re.findall(r"([+-]?)(\d+\*)?([A-Za-z_]\w*|\d+)", text):
            factor = (-1 if sign == "-" else 1) * (int(coefficient[:-1]) if coefficient else 1)
            if atom.isdigit():
                constant += factor * int(atom)
                continue
            if atom not in sizes:
                raise _graft.GraftError(
                    f"to_graph_module: node '{node.name}' ({node.target}) has {name}={text}, "
                    f"but no input's shape has the symbol '{atom}'")
            term = graph.call_method("size", sizes[atom])
            if factor != 1:
                term = graph.call_function(operator.mul, (term, factor))
            value = term if value is None else graph.call_function(operator.add, (value, term))
        if constant:
            value = graph.call_function(operator.add, (value, constant))
        return value

    for node in nodes:
        if node.op == "placeholder":
            fx_node = graph.placeholder(node.name)
            for d, dim in enumerate(node.shape or ()):
                if isinstance(dim, str) and dim != "?":
                    sizes.setdefault(dim, (fx_node, d))
        elif node.op == "get_attr":
            if node.target not in done:
                array = np.array(model._handle.constant(node.target))  # a writable copy
                tensor = torch.from_numpy(array)
                if tensor.is_floating_point() and node.target not in statistics:
                    tensor = torch.nn.Parameter(tensor)
                _set_attr(root, node.target, tensor)
                done.add(node.target)
            fx_node = graph.get_attr(node.target)
        elif node.op == "call_function":
            kwargs = dict(node.kwargs)
            for name in node.symbols:  # a SymInt's symbol, or a SymInt[] list's
                held = kwargs[name]
                kwargs[name] = ([symbol_size(node, name, v) if isinstance(v, str) else v
                                 for v in held] if isinstance(held, list)
                                else symbol_size(node, name, held))
            fx_node = _call(graph, torch, node, [value(a) for a in node.args], kwargs)
        else:
            outputs = [value(a) for a in node.args]
            graph.output(outputs[0] if len(outputs) == 1 else tuple(outputs))
            continue
        fx_node.meta["graft_shape"] = list(node.shape or ())
        fx_node.meta["graft_dtype"] = node.dtype
        env[node.name] = fx_node
    graph.lint()
    return torch.fx.GraphModule(root, graph, class_name="GraftModule")
