"""Recomposes instance norm, which PyTorch decomposes before the ATen level into a batch norm
of the input flattened to one sample of N * C channels, with the per-channel tensors repeated
N times:

    reshape(getitem(native_batch_norm(reshape(x, [1, N*C, *S]), repeat(w, [N]) | None,
            repeat(b, [N]) | None, repeat(mean, [N]) | None, repeat(var, [N]) | None,
            training, momentum, eps), 0), [N, C, *S])

On the input's own statistics (training=True) that is native_group_norm(x, w, b, N, C, HxW,
group=C, eps); on running statistics (training=False) native_batch_norm(x, w, b, mean, var)
with the repeats undone. The flattening reshape and the repeats, whose sizes follow the batch,
go with it.
"""
import math
import operator

import torch
import torch.fx

A = torch.ops.aten


def _shape(node):
    meta = node.meta.get("tensor_meta") if isinstance(node, torch.fx.Node) else None
    return tuple(meta.shape) if meta is not None and hasattr(meta, "shape") else None


def _is(node, *targets):
    return isinstance(node, torch.fx.Node) and node.op == "call_function" and \
        node.target in targets


def _unrepeated(value, batch, channels):
    """The (C,) tensor `value` repeats N times (None stays None); False if it is not that."""
    if value is None:
        return None
    if not _is(value, A.repeat.default) or list(value.args[1]) != [batch]:
        return False
    source = value.args[0]
    return source if _shape(source) == (channels,) else False


def _recompose(graph, node):
    """`node` is the final reshape of the pattern in the module's docstring."""
    item = node.args[0]
    if not (_is(item, operator.getitem) and item.args[1] == 0
            and len(item.users) == 1 and _is(item.args[0], A.native_batch_norm.default)):
        return
    norm = item.args[0]
    flat, weight, bias, mean, var, training, momentum, eps = norm.args[:8]
    if not _is(flat, A.reshape.default) or len(flat.users) != 1:
        return
    x = flat.args[0]
    shape = _shape(x)
    if shape is None or len(shape) < 3 or _shape(node) != shape or \
            _shape(flat) != (1, shape[0] * shape[1]) + shape[2:]:
        return
    batch, channels = shape[0], shape[1]
    weight, bias, mean, var = (_unrepeated(v, batch, channels) for v in (weight, bias, mean, var))
    if False in (weight, bias, mean, var):
        return
    with graph.inserting_before(node):
        if training:
            new = graph.create_node(
                "call_function", A.native_group_norm.default,
                (x, weight, bias, batch, channels, math.prod(shape[2:]), channels, eps),
                name="native_group_norm")
        else:
            new = graph.create_node(
                "call_function", A.native_batch_norm.default,
                (x, weight, bias, mean, var, False, momentum, eps), name="native_batch_norm")
        first = graph.create_node("call_function", item.target, (new, 0), name="getitem")
    first.meta = dict(node.meta)
    node.replace_all_uses_with(first)
    graph.erase_node(node)


def recompose_instance_norms(graph):
    """Rewrites every instance norm in `graph` (reshapes already normalised to aten.reshape);
    the caller eliminates the dead nodes."""
    for node in list(graph.nodes):
        if _is(node, A.reshape.default):
            _recompose(graph, node)
