"""The converters of the ATen table's rows that are more than a renaming of arguments
(aten_ops.py): ops that map to graft ops by their arguments' values or the recorded shapes
(convolution by weight rank, reshapes, expand, slice), multi-output ops whose outputs map one
by one, and ops that become several graft ops.
"""
import math

from .aten_rows import check_options, dtype_attr, scalar
from .common import Ref, Unsupported, advice, as_int

_INT64_MAX = 9223372036854775807


# ** convolution, matmul **


def convolution(cx, a):
    weight = a.tensor("weight")
    spatial = len(cx.shape(weight)) - 2
    if spatial not in (1, 2, 3):
        raise Unsupported("a %d-D convolution" % spatial)
    attrs = {"stride": a.ints("stride"), "padding": a.ints("padding"),
             "dilation": a.ints("dilation"), "groups": a.int("groups")}
    if a.transposed:
        attrs["output_padding"] = a.ints("output_padding")
        op = "conv_transpose%dd" % spatial
    else:
        op = "conv%dd" % spatial
    return cx.call(op, [a.tensor("input"), weight, a.bias], **attrs)


def addmm(cx, a):
    # self * beta + (mat1 @ mat2) * alpha; a linear layer has been recomposed into
    # aten.linear already (aten_recompose.py), so this is a plain matrix product.
    product = cx.step("matmul", [a.tensor("mat1"), a.tensor("mat2")])
    if a.alpha != 1:
        product = cx.step("mul", [product, scalar(a.alpha)])
    bias = a.tensor("self")
    if a.beta != 1:
        bias = cx.step("mul", [bias, scalar(a.beta)])
    return cx.call("add", [product, bias])


def baddbmm(cx, a):
    return addmm(cx, type(a)(a.target, dict(a.values, mat1=a.batch1, mat2=a.batch2)))


# ** shapes **


def transpose_2d(cx, a):
    x = a.tensor("self")
    if len(cx.shape(x)) < 2:
        return x
    return cx.call("transpose", [x], dim0=0, dim1=1)


def reshape(cx, a):
    return cx.reshape(a.tensor("self"))


def expand(cx, a):
    x = a.tensor("self")
    ins, outs = cx.shapes(x), cx.result_shapes()
    if all(list(ins[r]) == list(outs[r]) for r in outs):
        return x
    lead = len(outs[None]) - len(ins[None])
    sizes = []
    for k, d in enumerate(outs[None]):
        if k >= lead and all(ins[r][k - lead] == outs[r][k] for r in outs):
            sizes.append(-1)  # torch's "keep this dim", symbolic or not
        elif any(outs[r][k] != d for r in outs):
            # A new or broadcast dim of symbolic size: take the shape from a value that has it.
            witness = cx.witness(outs)
            if witness is None:
                raise _symbolic_size_error("expand", outs)
            return cx.call("expand_as", [x, witness])
        else:
            sizes.append(d)
    return cx.call("expand", [x], size=sizes)


def _symbolic_size_error(what, shapes):
    changed = sorted(s for s, shape in shapes.items()
                     if s is not None and tuple(shape) != tuple(shapes[None]))
    return Unsupported("the size of %s (%s) depends on %s, and no tensor of the graph has that "
                       "shape to take it from; graft has no symbolic sizes in attributes yet; "
                       "%s" % (what, list(shapes[None]), "/".join(changed), advice(changed)))


def full(fill=None):
    """The converter of zeros/ones/full/new_zeros/empty... whose size follows the symbols
    (otherwise they are folded): full_like of a value with that shape, in the dtype PyTorch
    recorded."""
    def convert(cx, a):
        check_options(a)
        witness = cx.witness(cx.result_shapes())
        if witness is None:
            raise _symbolic_size_error(a.target, cx.result_shapes())
        value = fill if fill is not None else scalar(a.fill_value)
        return cx.call("full_like", [witness], fill_value=value,
                       dtype=dtype_attr(cx.result_dtype()))
    return convert


def fill_like(cx, a):
    """zero/fill: a tensor of `self`'s shape and dtype filled with a value (functionalize's
    form of zero_() and fill_()); a 0-dim tensor value is broadcast to that shape."""
    if isinstance(a.values.get("value"), Ref):
        return cx.call("expand_as", [a.value, a.tensor("self")])
    value = 0 if "value" not in a.values else scalar(a.value)
    return cx.call("full_like", [a.tensor("self")], fill_value=value)


def slice_(cx, a):
    x = a.tensor("self")
    dim = a.int("dim") % len(cx.shape(x))
    step = a.int("step")
    start = 0 if a.start is None else a.start
    end = _INT64_MAX if a.end is None else a.end
    sizes = {r: shape[dim] for r, shape in cx.shapes(x).items()}
    end_runs = _runs(end, sizes)
    if all(e >= sizes[r] for r, e in end_runs.items()):
        end = None  # to the end, however long the dim is
    else:
        end = _slice_bound(cx, end, "end")
    start = _slice_bound(cx, start, "start")
    if start in (0, None) and end is None and step == 1:
        return x
    return cx.call("slice", [x], dim=dim, start=start or None, end=end,
                   step=None if step == 1 else step)


def _slice_bound(cx, value, which):
    """A bound of a slice: an int, or a symbol where it follows one (x[:T])."""
    what = "the %s of aten.slice.Tensor" % which
    value = cx.symbolic("slice", which, value, what)
    return value if isinstance(value, str) else as_int(value, what)


def _runs(value, sizes):
    """{run: value} of an int that may be Dependent, for the runs in `sizes`."""
    if hasattr(value, "changes"):
        return {r: value.base if r is None else value.changes.get(r, value.base) for r in sizes}
    return {r: value for r in sizes}


def cat(cx, a):
    tensors = [t for t in a.tensors if not (isinstance(t, Ref) and cx.shape(t) == (0,))]
    for t in tensors:
        if not isinstance(t, Ref):
            raise Unsupported("each of cat's tensors must be computed by the graph")
    if len(tensors) == 1:
        return tensors[0]
    return cx.call("cat", [tensors], dim=a.int("dim"))


def stack(cx, a):
    dim = a.int("dim")
    rank = len(cx.shape(a.tensors[0])) + 1
    parts = [cx.step("unsqueeze", [t], dim=dim % rank) for t in a.tensors]
    return cx.call("cat", [parts], dim=dim)


def _contiguous(shape, stride):
    expected = 1
    for size, step in reversed(list(zip(shape, stride))):
        if size > 1 and step != expected:
            return False
        expected *= size
    return True


def as_strided(cx, a):
    # functionalize writes some views (such as the keepdim result of a mean that a later op
    # views again) as as_strided: when both layouts are plain row-major it is a reshape.
    x = a.tensor("self")
    meta = a.node.args[0].meta.get("tensor_meta")
    size = [getattr(v, "base", v) for v in a.size]
    stride = [getattr(v, "base", v) for v in a.stride]
    if (a.storage_offset in (None, 0) and meta is not None and
            _contiguous(meta.shape, meta.stride) and _contiguous(size, stride) and
            math.prod(size) == math.prod(meta.shape)):
        return cx.reshape(x)
    raise Unsupported("as_strided that selects, reorders or repeats elements (size %s, "
                      "stride %s)" % (size, stride))


def squeeze_all(cx, a):
    return cx.reshape(a.tensor("self"))


def index(cx, a):
    indices = list(a.indices)
    while indices and indices[-1] is None:
        indices.pop()
    used = [k for k, t in enumerate(indices) if t is not None]
    if len(used) == 1 and len(cx.shape(indices[used[0]])) == 1:
        return cx.call("index_select", [a.tensor("self")], dim=used[0], index=indices[used[0]])
    return cx.call("index", [a.tensor("self"), indices])


# ** norms and moments, written with graft's elementwise ops and reductions **


def _reduced_dims(cx, x, dim):
    rank = len(cx.shape(x))
    return list(range(rank)) if dim in (None, []) else [d % rank for d in dim]


def vector_norm(cx, a):
    """linalg_vector_norm: sqrt(sum(x * x)) for ord 2, sum(|x|) for 1, amax(|x|) for inf,
    sum(|x|^p)^(1/p) otherwise (torch's own decomposition leaves prims ops)."""
    if a.dtype is not None:
        raise Unsupported("dtype=%s: a cast inside the norm" % a.dtype)
    x, dim, keepdim = a.tensor("self"), a.ints("dim"), bool(a.keepdim) or None
    order = float(a.ord)
    if order == 2.0:
        total = cx.step("sum", [cx.step("mul", [x, x])], dim=dim, keepdim=keepdim)
        return cx.call("sqrt", [total])
    magnitude = cx.step("abs", [x])
    if order == 1.0:
        return cx.call("sum", [magnitude], dim=dim, keepdim=keepdim)
    if order == float("inf"):
        return cx.call("amax", [magnitude], dim=dim or [], keepdim=keepdim)
    if order in (0.0, float("-inf")):
        raise Unsupported("a vector norm of order %s" % a.ord)
    total = cx.step("sum", [cx.step("pow", [magnitude, order])], dim=dim, keepdim=keepdim)
    return cx.call("pow", [total, 1.0 / order])


def var_mean_output(cx, a, i):
    """var_mean's outputs: 0 the variance (mean, difference, squares, sum, divide by the
    count less the correction), 1 the mean."""
    x, dim, keepdim = a.tensor("self"), a.ints("dim"), bool(a.keepdim) or None
    if i == 1:
        return cx.call("mean", [x], dim=dim, keepdim=keepdim)
    reduced = _reduced_dims(cx, x, dim)
    shapes = cx.shapes(x)
    if any(shapes[r][d] != shapes[None][d] for r in shapes for d in reduced):
        raise Unsupported("a variance over a symbolic dim (its element count is not a "
                          "constant)")
    count = math.prod(shapes[None][d] for d in reduced)
    correction = 1 if a.correction is None else a.correction
    difference = cx.step("sub", [x, cx.step("mean", [x], dim=dim, keepdim=True)])
    total = cx.step("sum", [cx.step("mul", [difference, difference])], dim=dim,
                    keepdim=keepdim)
    return cx.call("div", [total, float(max(count - correction, 0))])


# ** multi-output ops: each used output (getitem) becomes a graft op **


def split_output(sizes_of):
    def output(cx, a, i):
        x = a.tensor("self")
        dim = a.int("dim") % len(cx.shape(x))
        sizes = sizes_of(a, cx.shape(x)[dim])
        start = sum(sizes[:i])
        end = start + sizes[i]
        return cx.call("slice", [x], dim=dim, start=start or None,
                       end=None if end >= cx.shape(x)[dim] else end)
    return output


def equal_sizes(a, total):
    size = a.int("split_size")
    return [min(size, total - k) for k in range(0, total, size)] if size > 0 else [total]


def unbind_output(cx, a, i):
    return cx.call("select", [a.tensor("self")], dim=a.int("dim"), index=i)


def max_dim_output(values_op, indices_op):
    def output(cx, a, i):
        if i == 0:
            return cx.call(values_op, [a.tensor("self")], dim=[a.int("dim")],
                           keepdim=a.keepdim or None)
        return cx.call(indices_op, [a.tensor("self")], dim=a.int("dim"),
                       keepdim=a.keepdim or None)
    return output


# ** arithmetic and activations **


def hardtanh(cx, a):
    low, high = float(a.min_val), float(a.max_val)
    if (low, high) == (0.0, 6.0):
        return cx.call("relu6", [a.tensor("self")])
    return cx.call("hardtanh", [a.tensor("self")], min_val=low, max_val=high)


def clamp_tensor(cx, a):
    x = a.tensor("self")
    if a.min is not None:
        x = (cx.call if a.max is None else cx.step)("maximum", [x, a.min])
    if a.max is not None:
        x = cx.call("minimum", [x, a.max])
    return x


def to_copy(cx, a):
    check_options(a)
    x = a.tensor("self")
    if a.dtype is None or a.dtype == cx.dtype(x):
        return x
    return cx.call("to", [x], dtype=dtype_attr(a.dtype))
