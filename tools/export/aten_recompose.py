"""Normalises a graph make_fx recorded, in place, before it is compared with the other runs'
graphs and converted:

- Memory layout is dropped: clones and aliases (no-ops in a functional graph) go, as does an
  expand whose users broadcast anyway, and every
  reshape (view, _unsafe_view, _reshape_alias, reshape) becomes `reshape`. PyTorch picks among
  these by the layout of its tensors, which differs between runs when a dim is 1 in one run.
- F.linear and torch.matmul are recomposed, which PyTorch decomposes before the ATen level:
  `t(W)` + `addmm`/`mm` is linear(X, W, b) (or linear(X, W) and an `add` of the bias), and a
  product of tensors of more than two dims
  arrives flattened to 2-D or 3-D (view, maybe expand, mm or bmm, view back), which is matmul
  or linear on the tensors themselves. graft's linear and matmul take any leading dims, so the
  recomposed graph has none of the flattening reshapes, whose sizes (B * T) would otherwise fix
  the symbolic dims.
- Instance norm, which arrives as a batch norm of the input flattened to one sample of N * C
  channels, is group_norm or batch_norm on the input itself (aten_instance_norm.py).

Every condition is on the recorded shapes, so a rewrite is exact; the graph stays runnable.
"""
import math

import torch
import torch.fx

from .aten_instance_norm import recompose_instance_norms

A = torch.ops.aten
_VIEWS = (A.view.default, A._unsafe_view.default, A._reshape_alias.default, A.reshape.default)


def _shape(node):
    meta = node.meta.get("tensor_meta") if hasattr(node, "meta") else None
    return tuple(meta.shape) if meta is not None and hasattr(meta, "shape") else None


def _is(node, *targets):
    return getattr(node, "op", None) == "call_function" and node.target in targets


def _replace(graph, old, target, args):
    with graph.inserting_before(old):
        new = graph.create_node("call_function", target, tuple(args),
                                name=target.overloadpacket.__name__.lstrip("_"))
    new.meta = dict(old.meta)
    old.replace_all_uses_with(new)
    graph.erase_node(old)
    return new


def _linear(graph, node):
    """addmm(b, X, t(W)) (beta = alpha = 1) or mm(X, t(W)) -> linear(X, W, b)."""
    if node.target is A.addmm.default:
        if node.kwargs.get("beta", 1) != 1 or node.kwargs.get("alpha", 1) != 1:
            return
        bias, x, wt = node.args[:3]
        if _shape(bias) is None or len(_shape(bias)) != 1:
            return
    else:
        (x, wt), bias = node.args[:2], None
    if not _is(wt, A.t.default) or _shape(wt.args[0]) is None or len(_shape(wt.args[0])) != 2:
        return
    _replace(graph, node, A.linear.default, [x, wt.args[0], bias])


def _linear_bias(graph, node):
    """add(linear(X, W), b) with b of shape [out] (F.linear on a non-contiguous input adds the
    bias apart) -> linear(X, W, b)."""
    if node.kwargs.get("alpha", 1) != 1:
        return
    for product, bias in (node.args[:2], node.args[1::-1]):
        if _is(product, A.linear.default) and (len(product.args) < 3 or product.args[2] is None) \
                and len(product.users) == 1 and _shape(bias) == (_shape(product)[-1],):
            _replace(graph, node, A.linear.default, [product.args[0], product.args[1], bias])
            return


def _view_chain(node):
    """The tensors a single-use chain of views (which keep the row-major element order)
    leading to `node` passes through, nearest first."""
    chain = []
    while _is(node, *_VIEWS) and len(node.users) == 1:
        node = node.args[0]
        chain.append(node)
    return chain


def _through_views(node):
    """The tensor such a chain starts from."""
    chain = _view_chain(node)
    return chain[-1] if chain else node


def _batched(flat, batch):
    """The tensor whose broadcast to `batch` + its last two dims `flat` (a bmm operand) holds
    with the batch dims flattened; None if `flat` is not that."""
    node = _through_views(flat)
    if _is(node, A.expand.default) and len(node.users) == 1:
        inner = node.args[0]
        inner_shape = _shape(inner)
        if inner_shape is None or len(inner_shape) < 2 or \
                _shape(node) != batch + inner_shape[-2:]:
            return None
        node = inner
    elif _shape(node) is None or _shape(node)[:-2] != batch:
        return None
    shape = _shape(node)
    if len(shape) < 2 or _shape(flat) != (math.prod(batch),) + shape[-2:]:
        return None
    return node


def _unflattened(graph, node):
    """view(product(flattened operands), S) -> the product on the operands themselves."""
    product = node.args[0]
    if not _is(product, A.linear.default, A.mm.default, A.bmm.default) or len(
            product.users) != 1:
        return
    out = _shape(node)
    if out is None or len(out) < 3:
        return
    if product.target is A.bmm.default:
        batch = out[:-2]
        left, right = _batched(product.args[0], batch), _batched(product.args[1], batch)
        if left is None or right is None:
            return
        ls, rs = _shape(left), _shape(right)
        if out != batch + (ls[-2], rs[-1]) or tuple(
                torch.broadcast_shapes(ls[:-2], rs[:-2])) != batch:
            return
        _replace(graph, node, A.matmul.default, [left, right])
        return
    flat = product.args[0]
    for x in _view_chain(flat):
        xs = _shape(x)
        if xs is not None and len(xs) >= 3 and _shape(flat) == (math.prod(xs[:-1]), xs[-1]) \
                and out == xs[:-1] + (_shape(product)[-1],):
            break
    else:
        return
    if product.target is A.linear.default:
        _replace(graph, node, A.linear.default, [x] + list(product.args[1:]))
    else:
        _replace(graph, node, A.matmul.default, [x, product.args[1]])


_IDENTITIES = (A.clone.default, A.alias.default, A.detach.default)
_BROADCASTING = (A.add.Tensor, A.sub.Tensor, A.mul.Tensor, A.div.Tensor, A.maximum.default,
                 A.minimum.default, A.pow.Tensor_Tensor, A.where.self, A.eq.Tensor,
                 A.ne.Tensor, A.lt.Tensor, A.le.Tensor, A.gt.Tensor, A.ge.Tensor)


def _needless_expand(node):
    """expand(x) whose users all broadcast x to the same shape anyway (F.normalize's
    `x / norm.expand_as(x)`): its users read x itself."""
    x = node.args[0]
    if _shape(x) is None:
        return
    for user in node.users:
        if not _is(user, *_BROADCASTING) or _shape(user) is None:
            return
        shapes = [_shape(x) if a is node else _shape(a) for a in user.args
                  if isinstance(a, torch.fx.Node)]
        if None in shapes or tuple(torch.broadcast_shapes(*shapes)) != _shape(user):
            return
    node.replace_all_uses_with(x)


def _drop_layout(graph):
    for node in list(graph.nodes):
        if _is(node, *_IDENTITIES):
            node.replace_all_uses_with(node.args[0])
            graph.erase_node(node)
        elif _is(node, A._unsafe_view.default, A._reshape_alias.default, A.view.default):
            _replace(graph, node, A.reshape.default, node.args[:2])


def recompose(gm):
    """Rewrites gm's graph in place (see the module's docstring)."""
    graph = gm.graph
    _drop_layout(graph)
    recompose_instance_norms(graph)
    for node in list(graph.nodes):
        if _is(node, A.addmm.default, A.mm.default):
            _linear(graph, node)
    for node in list(graph.nodes):
        if _is(node, *_VIEWS):
            _unflattened(graph, node)
    for node in list(graph.nodes):
        if _is(node, A.add.Tensor) and all(hasattr(a, "meta") for a in node.args[:2]):
            _linear_bias(graph, node)
        elif _is(node, A.expand.default):
            _needless_expand(node)
    graph.eliminate_dead_code()
    gm.recompile()
    return gm
